// sqsmock's web UI: what it does to queues -- create, delete, edit attributes, receive, delete
// or hide one received message. Each is an ordinary SQS call made as the queue's owner
// (sqs() in api.js), journaled like any client's; deleting a queue asks first.

import { $, bodyView, confirmAction, el, setText } from "./dom.js";
import { sqs } from "./api.js";

// Attributes SetQueueAttributes takes, as the edit form offers them (FIFO-only ones only on
// a FIFO queue). JSON ones (policies) are edited as text.
const SETTABLE = [
  "DelaySeconds",
  "MaximumMessageSize",
  "MessageRetentionPeriod",
  "ReceiveMessageWaitTimeSeconds",
  "VisibilityTimeout",
  "RedrivePolicy",
  "RedriveAllowPolicy",
  "Policy",
  "KmsMasterKeyId",
  "KmsDataKeyReusePeriodSeconds",
  "SqsManagedSseEnabled",
];
const FIFO_SETTABLE = ["ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit"];

// The create form's number fields: input id -> attribute.
const CREATE_NUMBERS = {
  "create-visibility": "VisibilityTimeout",
  "create-delay": "DelaySeconds",
  "create-retention": "MessageRetentionPeriod",
  "create-wait": "ReceiveMessageWaitTimeSeconds",
  "create-max-size": "MaximumMessageSize",
};

const arnOf = (q) => `arn:aws:sqs:${q.region}:${q.account}:${q.name}`;

// ui: {state, say, act, selectedQueue, keyOf, hrefOf}, given by app.js.
export function createActions(ui) {
  const { state, say, act, selectedQueue } = ui;

  // -- create --------------------------------------------------------------------------------

  function createOwner() {
    return {
      region: $("create-region").value.trim() || (state.home && state.home.region),
      account: $("create-account").value.trim() || (state.home && state.home.account),
    };
  }

  // Dead-letter queue choices: queues of the same owner and type as the one being made.
  function fillDlqChoices() {
    const fifo = $("create-fifo").checked;
    const owner = createOwner();
    const select = $("create-dlq");
    const kept = select.value;
    const choices = [...state.queues.values()].filter(
      (q) => q.region === owner.region && q.account === owner.account && q.fifo === fifo,
    );
    select.replaceChildren(
      el("option", { value: "", text: "none" }),
      ...choices.map((q) => el("option", { value: arnOf(q), text: q.name })),
    );
    if ([...select.options].some((o) => o.value === kept)) select.value = kept;
    $("create-max-receives").disabled = !select.value;
    $("create-dialog").classList.toggle("fifo", fifo);
  }

  function openCreate() {
    $("create-form").reset();
    if (state.home) {
      $("create-region").value = state.home.region;
      $("create-account").value = state.home.account;
    }
    fillDlqChoices();
    $("create-dialog").showModal();
    $("create-name").focus();
  }

  function createParams() {
    const fifo = $("create-fifo").checked;
    let name = $("create-name").value.trim();
    if (fifo && !name.endsWith(".fifo")) name += ".fifo";
    const attributes = {};
    for (const [id, attribute] of Object.entries(CREATE_NUMBERS)) {
      if ($(id).value !== "") attributes[attribute] = $(id).value;
    }
    if (fifo) {
      attributes.FifoQueue = "true";
      if ($("create-content-dedup").checked) attributes.ContentBasedDeduplication = "true";
    }
    if ($("create-dlq").value) {
      attributes.RedrivePolicy = JSON.stringify({
        deadLetterTargetArn: $("create-dlq").value,
        maxReceiveCount: Number($("create-max-receives").value || 5),
      });
    }
    return { QueueName: name, Attributes: attributes };
  }

  async function submitCreate(event) {
    event.preventDefault();
    const params = createParams();
    const owner = createOwner();
    try {
      await sqs("CreateQueue", params, owner);
    } catch (error) {
      setText($("create-error"), error.message); // keep the form open to fix it
      return;
    }
    $("create-dialog").close();
    setText($("create-error"), "");
    location.hash = ui.hrefOf({ ...owner, name: params.QueueName });
    await act(async () => {}, `Created ${params.QueueName}`);
  }

  // -- delete, purge -----------------------------------------------------------------------

  async function deleteQueue() {
    const q = selectedQueue();
    if (!q) return;
    const sure = await confirmAction(
      `Delete the queue ${q.name} and every message in it? This cannot be undone.`,
      "Delete queue",
    );
    if (sure) await act(() => sqs("DeleteQueue", { QueueUrl: q.url }, q), `Deleted ${q.name}`);
  }

  async function purge() {
    const q = selectedQueue();
    if (!q) return;
    const total = q.messages.visible + q.messages.inflight + q.messages.delayed;
    const sure = await confirmAction(
      `Purge ${q.name}: delete all its ${total} message${total === 1 ? "" : "s"}?`,
      "Purge",
    );
    if (sure) await act(() => sqs("PurgeQueue", { QueueUrl: q.url }, q), `Purged ${q.name}`);
  }

  // -- attributes ----------------------------------------------------------------------------

  function openEdit() {
    const q = selectedQueue();
    if (!q || !state.detail) return;
    const attributes = state.detail.attributes;
    const names = SETTABLE.concat(q.fifo ? FIFO_SETTABLE : []);
    $("edit-fields").replaceChildren(
      ...names.map((name) => {
        const value = attributes[name] === undefined ? "" : attributes[name];
        const long = /Policy$/.test(name);
        const input = el(long ? "textarea" : "input", {
          name,
          rows: long ? 2 : undefined,
          type: long ? undefined : "text",
          "data-testid": `edit-${name}`,
          dataset: { was: value },
        });
        input.value = value;
        return el("label", { class: "field" }, el("span", { text: name }), input);
      }),
    );
    $("attributes-box").open = true;
    $("edit-form").hidden = false;
    $("attributes").hidden = true;
    $("edit-attributes").hidden = true;
  }

  function closeEdit() {
    $("edit-form").hidden = true;
    $("attributes").hidden = false;
    $("edit-attributes").hidden = false;
  }

  async function submitEdit(event) {
    event.preventDefault();
    const q = selectedQueue();
    if (!q) return;
    const changed = {};
    for (const input of $("edit-fields").querySelectorAll("input, textarea")) {
      if (input.value !== input.dataset.was) changed[input.name] = input.value;
    }
    if (!Object.keys(changed).length) return closeEdit();
    try {
      await sqs("SetQueueAttributes", { QueueUrl: q.url, Attributes: changed }, q);
    } catch (error) {
      say(error.message, "error");
      return;
    }
    closeEdit();
    state.detail = null; // read them again
    await act(async () => {}, `Set ${Object.keys(changed).join(", ")}`);
  }

  // -- receiving one or more, then deleting or hiding one ----------------------------------

  function receivedItem(q, m) {
    const seconds = el("input", {
      type: "number",
      min: 0,
      max: 43200,
      step: 1,
      value: 30,
      "data-testid": "visibility-seconds",
      "aria-label": "Visibility timeout in seconds",
    });
    const attributes = m.Attributes || {};
    const item = el(
      "li",
      { "data-testid": "received", class: "message inflight", dataset: { id: m.MessageId } },
      el(
        "div",
        { class: "message-head" },
        el("code", { class: "id", text: m.MessageId }),
        attributes.MessageGroupId
          ? el("span", { class: "group", text: `group ${attributes.MessageGroupId}` })
          : null,
        el("span", { class: "receives", text: `received ${attributes.ApproximateReceiveCount || "?"}×` }),
      ),
      bodyView(m.Body, "received-body", say),
      el(
        "div",
        { class: "received-actions" },
        el("span", {
          class: "sub handle",
          title: m.ReceiptHandle,
          text: `receipt handle ${m.ReceiptHandle.slice(0, 16)}…`,
        }),
        el("label", { class: "sub" }, "visible in ", seconds, " s"),
        el("button", {
          type: "button",
          class: "small",
          "data-testid": "change-visibility",
          text: "Change visibility",
          onclick: () =>
            act(
              () =>
                sqs(
                  "ChangeMessageVisibility",
                  {
                    QueueUrl: q.url,
                    ReceiptHandle: m.ReceiptHandle,
                    VisibilityTimeout: Number(seconds.value),
                  },
                  q,
                ),
              `${m.MessageId}: visible in ${seconds.value} s`,
            ),
        }),
        el("button", {
          type: "button",
          class: "small danger",
          "data-testid": "delete-message",
          text: "Delete",
          onclick: () =>
            act(async () => {
              await sqs("DeleteMessage", { QueueUrl: q.url, ReceiptHandle: m.ReceiptHandle }, q);
              state.received = state.received.filter((r) => r !== m);
              item.remove();
              $("received-box").hidden = state.received.length === 0;
            }, `Deleted ${m.MessageId}`),
        }),
      ),
    );
    return item;
  }

  function renderReceived() {
    const q = selectedQueue();
    $("received").replaceChildren(...(q ? state.received.map((m) => receivedItem(q, m)) : []));
    $("received-box").hidden = state.received.length === 0;
  }

  async function receive(event) {
    event.preventDefault();
    const q = selectedQueue();
    if (!q) return;
    const params = {
      QueueUrl: q.url,
      MaxNumberOfMessages: Number($("receive-count").value || 1),
      WaitTimeSeconds: 0,
      AttributeNames: ["All"],
      MessageAttributeNames: ["All"],
    };
    const hide = $("receive-visibility").value;
    if (hide !== "") params.VisibilityTimeout = Number(hide);
    await act(async () => {
      const answer = await sqs("ReceiveMessage", params, q);
      const got = answer.Messages || [];
      const ids = new Set(got.map((m) => m.MessageId));
      state.received = got.concat(state.received.filter((r) => !ids.has(r.MessageId)));
      renderReceived();
      say(got.length ? `Received ${got.length}` : "No message was visible", got.length ? "ok" : "info");
    });
  }

  function wire() {
    $("create-open").addEventListener("click", openCreate);
    $("create-form").addEventListener("submit", submitCreate);
    $("create-cancel").addEventListener("click", () => $("create-dialog").close());
    for (const id of ["create-fifo", "create-region", "create-account", "create-dlq"]) {
      $(id).addEventListener("change", fillDlqChoices);
    }
    $("delete-queue").addEventListener("click", deleteQueue);
    $("purge").addEventListener("click", purge);
    $("edit-attributes").addEventListener("click", openEdit);
    $("edit-form").addEventListener("submit", submitEdit);
    $("edit-cancel").addEventListener("click", closeEdit);
    $("receive-form").addEventListener("submit", receive);
  }

  return { wire, renderReceived, closeEdit };
}
