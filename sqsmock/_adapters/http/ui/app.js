// sqsmock's web UI: watches the admin API, acts through SQS. No dependencies, same origin only.
//
// Everything shown comes from /_sqsmock/... (polled about once a second while the page is in
// view); sending, purging and redriving are SQS calls (AWS JSON 1.0), as any client makes them.
// Text from the server -- message bodies above all -- is only ever set with textContent.
// The messages of the queue in view are read a page at a time (the server's default page of
// 100, the next with the token its answer gives): a deep queue costs the server one page a
// poll, never the whole queue. Counts come from /_sqsmock/queues.
"use strict";

(() => {
  const ADMIN = "/_sqsmock/";
  const POLL_MS = 1000;
  const CALLS_SHOWN = 50;
  const NEXT_TOKEN = "X-Sqsmock-Next-Token"; // a peek's answer: where its next page starts

  const $ = (id) => document.getElementById(id);

  // -- building DOM without markup --------------------------------------------------------

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "class") node.className = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function setText(node, value) {
    const text = String(value);
    if (node.textContent !== text) node.textContent = text;
  }

  // -- talking to the server ----------------------------------------------------------------

  // Admin API: GET to read; anything that changes state is a POST/DELETE with a JSON body.
  async function admin(path, method = "GET", body = undefined) {
    const init = { method, headers: { Accept: "application/json" }, cache: "no-store" };
    if (method !== "GET") {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body === undefined ? {} : body);
    }
    const response = await fetch(ADMIN + path, init);
    if (response.status === 204) return null;
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
    }
    return data;
  }

  // SQS over AWS JSON 1.0. The server takes the caller's region and account from the SigV4
  // credential scope (signatures are not checked), so the call is made as the queue's owner.
  async function sqs(operation, params, queue) {
    const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, "");
    const scope = `${queue.account}/${stamp.slice(0, 8)}/${queue.region}/sqs/aws4_request`;
    const response = await fetch("/", {
      method: "POST",
      cache: "no-store",
      headers: {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": `AmazonSQS.${operation}`,
        "X-Amz-Date": stamp,
        Authorization:
          `AWS4-HMAC-SHA256 Credential=${scope}, ` +
          "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=sqsmock-ui",
      },
      body: JSON.stringify(params),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const header = response.headers.get("x-amzn-query-error") || "";
      const code = (header.split(";")[0] || String(data.__type || response.status).split("#").pop())
        .replace(/^AWS\.SimpleQueueService\./, "");
      throw new Error(`${code}: ${data.message || data.Message || response.statusText}`);
    }
    return data;
  }

  // -- state --------------------------------------------------------------------------------

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
    callsShown: "",
    faultsShown: "",
    ticks: 0,
    home: null, // the server's default region and account
    detail: null, // {key, arn, attributes, dlq} of the queue in view
  };

  const keyOf = (q) => `${q.region}/${q.account}/${q.name}`;
  const hrefOf = (q) =>
    "#/queue/" + [q.region, q.account, q.name].map(encodeURIComponent).join("/");
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

  // -- the queue list -------------------------------------------------------------------------

  function queueRow(q) {
    const key = keyOf(q);
    const link = el("a", { href: hrefOf(q), text: q.name });
    const where = el("span", { class: "where", text: `${q.region} · ${q.account}` });
    const cells = {
      visible: el("td", { class: "num", "data-testid": "count-visible" }),
      inflight: el("td", { class: "num", "data-testid": "count-inflight" }),
      delayed: el("td", { class: "num", "data-testid": "count-delayed" }),
    };
    const row = el(
      "tr",
      { "data-testid": "queue-row", dataset: { queue: q.name, key } },
      el("td", { class: "name" }, link, q.fifo ? el("span", { class: "pill", text: "FIFO" }) : null, where),
      cells.visible,
      cells.inflight,
      cells.delayed,
    );
    row.cells_ = cells;
    return row;
  }

  function renderQueues(list) {
    const body = $("queue-rows");
    const seen = new Set();
    state.queues = new Map(list.map((q) => [keyOf(q), q]));
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
    $("queue-rows").closest("table").classList.toggle("show-where", elsewhere);
    setText($("queue-count"), list.length);
    $("no-queues").hidden = list.length > 0;
    renderQueueHead();
  }

  // -- the queue in view ----------------------------------------------------------------------

  function selectedQueue() {
    return state.selected ? state.queues.get(state.selected) : undefined;
  }

  function renderQueueHead() {
    const q = selectedQueue();
    const view = $("queue-view");
    $("intro").hidden = Boolean(state.selected);
    view.hidden = !state.selected;
    if (!state.selected) return;
    if (!q) {
      setText($("queue-name"), state.selected.split("/").pop());
      setText($("queue-url"), "This queue does not exist (any more).");
      view.classList.add("gone");
      return;
    }
    view.classList.remove("gone");
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
      el("pre", { class: "body", "data-testid": "message-body", text: m.body }),
      el("details", { class: "message-attributes" }, el("summary", { text: "Attributes" }), attributes),
    );
  }

  // One page of the queue's messages and the token of the next ({messages, next}).
  async function peekPage(q, token) {
    const route = ["queues", q.region, q.account, q.name].map(encodeURIComponent).join("/");
    const query = token === null ? "" : `?next_token=${encodeURIComponent(token)}`;
    const response = await fetch(`${ADMIN}${route}/messages${query}`, {
      headers: { Accept: "application/json" },
      cache: "no-store",
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
    }
    return { messages: data, next: response.headers.get(NEXT_TOKEN) };
  }

  async function loadMessages() {
    const q = selectedQueue();
    if (!q) return;
    const token = state.pageToken;
    const { messages, next } = await peekPage(q, token);
    if (keyOf(q) !== state.selected || token !== state.pageToken) return; // moved on meanwhile
    state.nextToken = next;
    renderPaging(q, messages.length);
    const shown = JSON.stringify(messages);
    if (shown === state.messagesShown) return renderDue();
    state.messagesShown = shown;
    const list = $("messages");
    // Keep the attribute panels the user opened.
    const open = new Set(
      [...list.querySelectorAll("li details[open]")].map((d) => d.closest("li").dataset.id),
    );
    list.replaceChildren(
      ...messages.map((m) => {
        const item = messageItem(m);
        if (open.has(m.message_id)) item.querySelector("details").open = true;
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
    if (forward && state.nextToken !== null) {
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

  // Once per queue opened: its attributes, ARN and whether it is a dead-letter queue.
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
      say(error.message, "error");
    }
    if (state.detail !== detail) return;
    const list = $("attributes");
    list.replaceChildren();
    // The counts are shown live above; the attribute list is as of opening the queue.
    const names = Object.keys(detail.attributes).filter((n) => !n.startsWith("ApproximateNumber"));
    for (const name of names.sort()) {
      list.append(el("dt", { text: name }), el("dd", { text: detail.attributes[name] }));
    }
    $("redrive").hidden = !detail.dlq;
    setText($("redrive-state"), detail.dlq ? "dead-letter queue" : "");
  }

  function select(key) {
    if (key === state.selected) return;
    state.selected = key;
    state.detail = null;
    state.messagesShown = "";
    state.pages = [];
    state.pageToken = null;
    state.nextToken = null;
    $("message-pages").hidden = true;
    $("messages").replaceChildren();
    $("attributes").replaceChildren();
    $("redrive").hidden = true;
    setText($("redrive-state"), "");
    setText($("message-count"), "");
    for (const [rowKey, row] of state.rows) row.classList.toggle("selected", rowKey === key);
    renderQueueHead();
    refresh();
  }

  // -- clock, calls, faults ---------------------------------------------------------------------

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

  function queueOfCall(call) {
    const params = call.params || {};
    const url = params.QueueUrl || params.SourceArn || params.QueueName || "";
    return String(url).split(/[/:]/).pop();
  }

  async function loadCalls() {
    const data = await admin(`calls?newest=true&limit=${CALLS_SHOWN}`);
    const calls = (data.calls || []).slice().reverse();
    const shown = JSON.stringify(calls.map((c) => [c.request_id, c.status]));
    if (shown === state.callsShown) return;
    state.callsShown = shown;
    $("calls").replaceChildren(
      ...calls.map((call) => {
        const time = new Date(call.time * 1000).toISOString().slice(11, 19);
        const outcome = (call.error || "").replace(/^AWS\.SimpleQueueService\./, "");
        return el(
          "tr",
          { "data-testid": "call", class: call.error ? "failed" : "" },
          el("td", { class: "time", text: time }),
          el(
            "td",
            { class: "operation" },
            call.operation,
            call.error
              ? el(
                  "span",
                  { class: "error", title: call.error },
                  outcome,
                  call.injected ? el("span", { class: "pill warn", text: "injected" }) : null,
                )
              : null,
          ),
          el("td", { class: "queue", text: queueOfCall(call) }),
          el(
            "td",
            { class: "outcome" },
            el("span", { class: call.error ? "pill bad" : "pill good", text: call.status }),
          ),
        );
      }),
    );
    setText($("call-count"), calls.length ? `last ${calls.length}` : "");
    $("no-calls").hidden = calls.length > 0;
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
            text: `fired ${f.fired}${f.remaining !== null && f.remaining !== undefined ? `, ${f.remaining} left` : ""}`,
          }),
          el("button", {
            type: "button",
            class: "small",
            text: "Remove",
            onclick: () => act(() => admin(`faults/${encodeURIComponent(f.id)}`, "DELETE"), "Fault rule removed"),
          }),
        ),
      ),
    );
    setText($("fault-count"), faults.length || "");
    $("no-faults").hidden = faults.length > 0;
  }

  // -- polling ----------------------------------------------------------------------------------

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
        if (state.ticks % 2 === 0) work.push(loadCalls(), loadFaults());
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
    await refresh();
  }

  // -- wiring -----------------------------------------------------------------------------------

  function wire() {
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

    $("purge").addEventListener("click", () => {
      const q = selectedQueue();
      if (!q) return;
      act(() => sqs("PurgeQueue", { QueueUrl: q.url }, q), `Purged ${q.name}`);
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
})();
