// sqsmock's web UI: watches the admin API, acts through SQS. No dependencies, same origin only.
//
// Everything shown comes from /_sqsmock/... (polled about once a second while the page is in
// view); what the page does to queues and messages is an SQS call (AWS JSON 1.0, POST), as any
// client makes it (actions.js); what it does to the server (clock, fault rules) is a JSON
// POST/DELETE to the admin API. Text from the server -- message bodies above all -- is only
// ever set with textContent (dom.js). The messages of the queue in view are read a page at a
// time (the server's default page of 100 unless the page size says otherwise, the next with
// the token its answer gives): a deep queue costs the server one page a poll, never the whole
// queue. Counts come from /_sqsmock/queues.

import { $, bodyView, el, foldState, restoreFolds, setText } from "./dom.js";
import { admin, peekPage, sqs } from "./api.js";
import { createActions } from "./actions.js";
import { createCalls } from "./calls.js";

const POLL_MS = 1000;
const DEFAULT_PAGE = 100; // the server's page when ?limit= is not given

const state = {
  queues: new Map(), // key -> queue as /_sqsmock/queues answers it
  clock: null,
  selected: null, // key of the queue in view
  rows: new Map(), // key -> <tr>
  messagesShown: "", // what the message list shows, to redraw only on change
  pages: [], // where each page before the one in view starts: [{token, count}]
  pageToken: null, // where the page in view starts (null: the first message)
  nextToken: null, // where the page after it starts (null: it reaches the end)
  pageCount: 0, // messages on the page in view
  faultsShown: "",
  ticks: 0,
  home: null, // the server's default region and account
  detail: null, // {key, arn, attributes, dlq} of the queue in view
  received: [], // messages this page received from the queue in view (with receipt handles)
};

const keyOf = (q) => `${q.region}/${q.account}/${q.name}`;
const hrefOf = (q) => "#/queue/" + [q.region, q.account, q.name].map(encodeURIComponent).join("/");
const arnOf = (q) => `arn:aws:sqs:${q.region}:${q.account}:${q.name}`;

function selectedFromHash() {
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts.length !== 4 || parts[0] !== "queue") return null;
  try {
    return parts.slice(1).map(decodeURIComponent).join("/");
  } catch {
    return null;
  }
}

let statusTimer = 0;
function say(text, kind = "info") {
  const status = $("status");
  status.textContent = text;
  status.title = text;
  status.className = `status ${kind}`;
  clearTimeout(statusTimer);
  if (kind !== "error") statusTimer = setTimeout(() => (status.textContent = ""), 4000);
}

// -- the queue list, and its filter ----------------------------------------------------------

function queueRow(q) {
  const link = el("a", { href: hrefOf(q), text: q.name });
  const where = el("span", { class: "where", text: `${q.region} · ${q.account}` });
  const cells = {
    visible: el("td", { class: "num", "data-testid": "count-visible" }),
    inflight: el("td", { class: "num", "data-testid": "count-inflight" }),
    delayed: el("td", { class: "num", "data-testid": "count-delayed" }),
  };
  const row = el(
    "tr",
    { "data-testid": "queue-row", dataset: { queue: q.name, key: keyOf(q) } },
    el("td", { class: "name" }, link, q.fifo ? el("span", { class: "pill", text: "FIFO" }) : null, where),
    cells.visible,
    cells.inflight,
    cells.delayed,
  );
  row.cells_ = cells;
  return row;
}

// A <select> of every value seen (region or account), keeping the choice; hidden when there
// is only one to choose.
function fillChoices(select, values, all) {
  const kept = select.value;
  const wanted = ["", ...[...new Set(values)].sort()];
  if ([...select.options].map((o) => o.value).join("\n") !== wanted.join("\n")) {
    select.replaceChildren(...wanted.map((v) => el("option", { value: v, text: v || all })));
    select.value = wanted.includes(kept) ? kept : "";
  }
  select.hidden = wanted.length <= 2 && !select.value;
}

function matches(q) {
  const text = $("queue-filter").value.trim().toLowerCase();
  const region = $("queue-region").value;
  const account = $("queue-account").value;
  return (
    (!text || q.name.toLowerCase().includes(text)) &&
    (!region || q.region === region) &&
    (!account || q.account === account)
  );
}

function renderQueues(list) {
  const body = $("queue-rows");
  const seen = new Set();
  state.queues = new Map(list.map((q) => [keyOf(q), q]));
  fillChoices($("queue-region"), list.map((q) => q.region), "every region");
  fillChoices($("queue-account"), list.map((q) => q.account), "every account");
  let shown = 0;
  list.forEach((q, index) => {
    const key = keyOf(q);
    seen.add(key);
    let row = state.rows.get(key);
    if (!row) {
      row = queueRow(q);
      state.rows.set(key, row);
    }
    if (body.children[index] !== row) body.insertBefore(row, body.children[index] || null);
    for (const name of ["visible", "inflight", "delayed"]) {
      setText(row.cells_[name], q.messages[name]);
      row.cells_[name].classList.toggle("zero", q.messages[name] === 0);
    }
    row.classList.toggle("selected", key === state.selected);
    row.hidden = !matches(q);
    if (!row.hidden) shown += 1;
  });
  for (const [key, row] of state.rows) {
    if (!seen.has(key)) {
      row.remove();
      state.rows.delete(key);
    }
  }
  // Say where each queue lives only when they do not all live where the server's default is.
  const home = state.home;
  const elsewhere = list.some((q) => !home || q.region !== home.region || q.account !== home.account);
  body.closest("table").classList.toggle("show-where", elsewhere);
  setText($("queue-count"), shown === list.length ? list.length : `${shown} of ${list.length}`);
  $("no-queues").hidden = list.length > 0;
  $("no-match").hidden = list.length === 0 || shown > 0;
  renderQueueHead();
}

// -- the queue in view -----------------------------------------------------------------------

function selectedQueue() {
  return state.selected ? state.queues.get(state.selected) : undefined;
}

// Forget what the page showed of the queue in view (when another is opened or it is gone).
function clearQueueView() {
  state.detail = null;
  state.messagesShown = "";
  state.pages = [];
  state.pageToken = null;
  state.nextToken = null;
  state.received = [];
  $("message-pages").hidden = true;
  $("messages").replaceChildren();
  $("no-messages").hidden = true;
  $("attributes").replaceChildren();
  $("received").replaceChildren();
  $("received-box").hidden = true;
  $("redrive").hidden = true;
  setText($("redrive-state"), "");
  setText($("message-count"), "");
  actions.closeEdit();
}

function renderQueueHead() {
  const q = selectedQueue();
  const view = $("queue-view");
  $("intro").hidden = Boolean(state.selected);
  view.hidden = !state.selected;
  if (!state.selected) return;
  const gone = !q;
  if (gone && !view.classList.contains("gone")) clearQueueView();
  view.classList.toggle("gone", gone);
  $("queue-actions").disabled = gone;
  $("edit-attributes").disabled = gone;
  $("gone-note").hidden = !gone;
  if (gone) {
    setText($("queue-name"), state.selected.split("/").pop());
    setText($("queue-url"), "This queue does not exist (any more).");
    for (const id of ["qv-visible", "qv-inflight", "qv-delayed"]) setText($(id), "–");
    return;
  }
  view.classList.toggle("fifo", q.fifo);
  setText($("queue-name"), q.name);
  setText($("queue-url"), q.url);
  setText($("qv-visible"), q.messages.visible);
  setText($("qv-inflight"), q.messages.inflight);
  setText($("qv-delayed"), q.messages.delayed);
}

function when(seconds) {
  if (!state.clock) return "";
  const left = seconds - state.clock.now;
  if (left <= 0) return "now";
  if (left < 120) return `in ${left.toFixed(left < 10 ? 1 : 0)} s`;
  return `in ${Math.round(left / 60)} min`;
}

function messageItem(m) {
  const attributes = el("dl", { class: "kv" });
  for (const [name, value] of Object.entries(m.attributes || {})) {
    let shown = value;
    if (/Timestamp$/.test(name) && /^\d+$/.test(value)) {
      shown = `${new Date(Number(value)).toISOString()} (${value})`;
    }
    attributes.append(el("dt", { text: name }), el("dd", { text: shown }));
  }
  for (const [name, value] of Object.entries(m.message_attributes || {})) {
    const shown = value.StringValue !== undefined ? value.StringValue : value.BinaryValue;
    attributes.append(
      el("dt", { text: name }, el("span", { class: "type", text: value.DataType })),
      el("dd", { text: shown === undefined ? "" : shown }),
    );
  }
  return el(
    "li",
    { "data-testid": "message", class: `message ${m.state}`, dataset: { id: m.message_id } },
    el(
      "div",
      { class: "message-head" },
      el("span", { class: `pill state ${m.state}`, text: m.state === "inflight" ? "in flight" : m.state }),
      el("code", { class: "id", text: m.message_id }),
      m.group_id !== null && m.group_id !== undefined
        ? el("span", { class: "group", text: `group ${m.group_id}` })
        : null,
      el("span", {
        class: "receives",
        "data-testid": "receive-count",
        dataset: { count: m.receive_count },
        text: `received ${m.receive_count}×`,
      }),
      m.visible_at ? el("span", { class: "due", dataset: { at: m.visible_at } }) : null,
    ),
    bodyView(m.body, "message-body", say),
    el("details", { class: "message-attributes" }, el("summary", { text: "Attributes" }), attributes),
  );
}

function pageSize() {
  return Number($("page-size").value) || DEFAULT_PAGE;
}

async function loadMessages() {
  const q = selectedQueue();
  if (!q) return;
  const token = state.pageToken;
  const size = pageSize();
  let page;
  try {
    page = await peekPage(q, token, size === DEFAULT_PAGE ? null : size);
  } catch (error) {
    if (error.status === 404) return; // deleted meanwhile: the next poll of the list says so
    throw error;
  }
  if (keyOf(q) !== state.selected || token !== state.pageToken || !selectedQueue()) return;
  const { messages, next } = page;
  state.nextToken = next;
  renderPaging(q, messages.length);
  const shown = JSON.stringify(messages);
  if (shown === state.messagesShown) return renderDue();
  state.messagesShown = shown;
  const list = $("messages");
  // Keep the attribute panels the user opened and how they folded each body.
  const before = new Map(
    [...list.children].map((li) => [
      li.dataset.id,
      { attributes: li.querySelector("details.message-attributes").open, body: foldState(li) },
    ]),
  );
  list.replaceChildren(
    ...messages.map((m) => {
      const item = messageItem(m);
      const kept = before.get(m.message_id);
      if (kept) {
        item.querySelector("details.message-attributes").open = kept.attributes;
        restoreFolds(item, kept.body);
      }
      return item;
    }),
  );
  $("no-messages").hidden = messages.length > 0 || state.pages.length > 0;
  renderDue();
}

// "101–200 of 12,345" and the page buttons; the total is the queue's counts.
function renderPaging(q, count) {
  const total = q.messages.visible + q.messages.inflight + q.messages.delayed;
  const before = state.pages.reduce((sum, p) => sum + p.count, 0);
  state.pageCount = count;
  const paged = state.pages.length > 0 || state.nextToken !== null;
  setText(
    $("message-count"),
    !paged ? count : count ? `${before + 1}–${before + count} of ${Math.max(total, before + count)}` : "",
  );
  $("message-pages").hidden = !paged;
  $("messages-previous").disabled = state.pages.length === 0;
  $("messages-next").disabled = state.nextToken === null;
}

function turnPage(forward) {
  if (forward === null) {
    state.pages = [];
    state.pageToken = null;
  } else if (forward && state.nextToken !== null) {
    state.pages.push({ token: state.pageToken, count: state.pageCount || 0 });
    state.pageToken = state.nextToken;
  } else if (!forward && state.pages.length) {
    state.pageToken = state.pages.pop().token;
  } else {
    return;
  }
  state.nextToken = null;
  state.messagesShown = "";
  refresh();
}

// "visible in 12 s" under delayed and in-flight messages, as the clock moves.
function renderDue() {
  for (const due of $("messages").querySelectorAll(".due")) {
    setText(due, `visible ${when(Number(due.dataset.at))}`);
  }
}

// Once per queue opened (and after an edit): its attributes, ARN and whether it is a DLQ.
async function loadDetail() {
  const q = selectedQueue();
  if (!q || (state.detail && state.detail.key === keyOf(q))) return;
  const detail = { key: keyOf(q), arn: arnOf(q), attributes: {}, dlq: false };
  state.detail = detail;
  try {
    const [attributes, sources] = await Promise.all([
      sqs("GetQueueAttributes", { QueueUrl: q.url, AttributeNames: ["All"] }, q),
      sqs("ListDeadLetterSourceQueues", { QueueUrl: q.url, MaxResults: 1 }, q),
    ]);
    detail.attributes = attributes.Attributes || {};
    detail.arn = detail.attributes.QueueArn || detail.arn;
    detail.dlq = (sources.queueUrls || []).length > 0;
  } catch (error) {
    if (error.code !== "NonExistentQueue") say(error.message, "error");
  }
  if (state.detail !== detail) return;
  const list = $("attributes");
  list.replaceChildren();
  // The counts are shown live above; the attribute list is as of opening the queue.
  const names = Object.keys(detail.attributes).filter((n) => !n.startsWith("ApproximateNumber"));
  for (const name of names.sort()) {
    const value = detail.attributes[name];
    const shown = /Policy$/.test(name) ? bodyView(value, "attribute-json", say) : value;
    list.append(el("dt", { text: name }), el("dd", { dataset: { attribute: name } }, shown));
  }
  $("redrive").hidden = !detail.dlq;
  setText($("redrive-state"), detail.dlq ? "dead-letter queue" : "");
}

function select(key) {
  if (key === state.selected) return;
  state.selected = key;
  clearQueueView();
  $("queue-view").classList.remove("gone");
  for (const [rowKey, row] of state.rows) row.classList.toggle("selected", rowKey === key);
  renderQueueHead();
  refresh();
}

// -- clock, faults ---------------------------------------------------------------------------

function renderClock(clock) {
  state.clock = clock;
  const now = $("clock-now");
  const text = clock.iso.replace("T", " ").replace(/\.\d+/, "").replace(/\+00:00$/, " UTC");
  setText(now, text);
  now.dateTime = clock.iso;
  now.dataset.now = String(clock.now);
  setText($("clock-kind"), clock.frozen ? "frozen" : "wall");
  $("clock-kind").classList.toggle("frozen", clock.frozen);
}

function describeFault(f) {
  const parts = [];
  parts.push(f.operation ? f.operation.join(", ") : "every operation");
  if (f.queue) parts.push(`on ${f.queue}`);
  if (f.error) parts.push(`→ ${f.error}`);
  if (f.entry_error) parts.push(`→ entries fail with ${f.entry_error}`);
  if (f.latency) parts.push(`+${f.latency} s latency`);
  if (f.probability !== null && f.probability !== undefined && f.probability < 1) {
    parts.push(`p=${f.probability}`);
  }
  return parts.join(" ");
}

async function loadFaults() {
  const data = await admin("faults");
  const faults = data.faults || [];
  const shown = JSON.stringify(faults);
  if (shown === state.faultsShown) return;
  state.faultsShown = shown;
  $("faults").replaceChildren(
    ...faults.map((f) =>
      el(
        "li",
        { "data-testid": "fault" },
        el("span", { class: "what", text: describeFault(f) }),
        el("span", {
          class: "sub",
          text:
            `fired ${f.fired}` +
            (f.remaining !== null && f.remaining !== undefined ? `, ${f.remaining} left` : ""),
        }),
        el("button", {
          type: "button",
          class: "small",
          text: "Remove",
          onclick: () =>
            act(() => admin(`faults/${encodeURIComponent(f.id)}`, "DELETE"), "Fault rule removed"),
        }),
      ),
    ),
  );
  setText($("fault-count"), faults.length || "");
  $("no-faults").hidden = faults.length > 0;
}

// -- polling ---------------------------------------------------------------------------------

let timer = 0;
let running = null;

async function refresh() {
  if (running) return running;
  clearTimeout(timer);
  running = (async () => {
    try {
      const [queues, clock] = await Promise.all([admin("queues"), admin("clock")]);
      renderClock(clock);
      renderQueues(queues);
      const work = [loadMessages(), loadDetail()];
      if (state.ticks % 2 === 0) work.push(calls.load(), loadFaults());
      state.ticks += 1;
      await Promise.all(work);
      document.body.classList.remove("offline");
      if ($("status").classList.contains("offline")) say("");
    } catch (error) {
      document.body.classList.add("offline");
      say(`Cannot reach the server: ${error.message}`, "offline error");
    } finally {
      running = null;
      if (!document.hidden) timer = setTimeout(refresh, POLL_MS);
    }
  })();
  return running;
}

// Run an action, say how it went, and show its effect at once.
async function act(action, done) {
  try {
    await action();
    if (done) say(done, "ok");
  } catch (error) {
    say(error.message, "error");
  }
  state.ticks = 0; // reload calls and faults too
  await running; // a poll under way may predate the action
  await refresh();
}

const actions = createActions({ state, say, act, selectedQueue, hrefOf });
const calls = createCalls(say);

// -- wiring ----------------------------------------------------------------------------------

function wire() {
  actions.wire();
  calls.wire();

  $("clock-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seconds = Number($("clock-seconds").value);
    act(() => admin("clock/advance", "POST", { seconds }), `Clock advanced ${seconds} s`);
  });

  $("send-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const q = selectedQueue();
    if (!q) return;
    const params = { QueueUrl: q.url, MessageBody: $("send-body").value };
    if (q.fifo) {
      params.MessageGroupId = $("send-group").value;
      if ($("send-dedup").value) params.MessageDeduplicationId = $("send-dedup").value;
    } else if ($("send-delay").value !== "") {
      params.DelaySeconds = Number($("send-delay").value);
    }
    act(async () => {
      const sent = await sqs("SendMessage", params, q);
      $("send-body").value = "";
      say(`Sent ${sent.MessageId}`, "ok");
    });
  });

  $("redrive").addEventListener("click", () => {
    const q = selectedQueue();
    if (!q || !state.detail) return;
    const arn = state.detail.arn;
    act(async () => {
      const task = await sqs("StartMessageMoveTask", { SourceArn: arn }, q);
      const listed = await sqs("ListMessageMoveTasks", { SourceArn: arn, MaxResults: 1 }, q);
      const latest = (listed.Results || [])[0];
      setText(
        $("redrive-state"),
        latest
          ? `redrive ${latest.Status.toLowerCase()}: ${latest.ApproximateNumberOfMessagesMoved} of ` +
              `${latest.ApproximateNumberOfMessagesToMove} moved` +
              (latest.FailureReason ? ` (${latest.FailureReason})` : "")
          : `redrive started (${task.TaskHandle})`,
      );
    }, "Redrive started");
  });

  $("messages-previous").addEventListener("click", () => turnPage(false));
  $("messages-next").addEventListener("click", () => turnPage(true));
  $("page-size").addEventListener("change", () => turnPage(null));

  for (const id of ["queue-filter", "queue-region", "queue-account"]) {
    $(id).addEventListener(id === "queue-filter" ? "input" : "change", () =>
      renderQueues([...state.queues.values()]),
    );
  }

  window.addEventListener("hashchange", () => select(selectedFromHash()));
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refresh();
  });
}

async function start() {
  wire();
  state.selected = selectedFromHash();
  try {
    const health = await admin("health");
    state.home = { region: health.region, account: health.account };
    setText($("server-meta"), `v${health.version} · ${health.region} · ${health.account}`);
  } catch {
    // refresh() reports an unreachable server
  }
  refresh();
}

start();
