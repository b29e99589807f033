// sqsmock's web UI: the call journal panel, and one call's request and answer.
//
// By default the panel follows the newest calls (?newest=true, polled with the rest of the
// page). "From the oldest" reads the journal a page at a time as GET /_sqsmock/calls pages it
// (oldest first, the next page by the answer's next_token), and "Latest" goes back to
// following. A row opens the call: its parameters and its answer (or error) as JSON.

import { $, bodyView, el, setText } from "./dom.js";
import { admin } from "./api.js";

const PAGE = 50;

export function createCalls(say) {
  const state = {
    browsing: false, // false: the newest calls, followed; true: pages from the oldest
    pages: [], // where each page before the one in view starts: [{token, count}]
    token: null, // where the page in view starts (null: the oldest kept)
    next: null, // where the page after it starts (null: none follows yet)
    shown: "",
    calls: [],
  };

  function queueOf(call) {
    const params = call.params || {};
    const url = params.QueueUrl || params.SourceArn || params.QueueName || "";
    return String(url).split(/[/:]/).pop();
  }

  function row(call, index) {
    const time = new Date(call.time * 1000).toISOString().slice(11, 19);
    const outcome = (call.error || "").replace(/^AWS\.SimpleQueueService\./, "");
    return el(
      "tr",
      {
        "data-testid": "call",
        class: call.error ? "failed" : "",
        tabindex: 0,
        title: "Open the request and the answer",
        dataset: { index },
        onclick: () => open(call),
        onkeydown: (event) => {
          if (event.key === "Enter") open(call);
        },
      },
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
      el("td", { class: "queue", text: queueOf(call) }),
      el(
        "td",
        { class: "outcome" },
        el("span", { class: call.error ? "pill bad" : "pill good", text: call.status }),
      ),
    );
  }

  function open(call) {
    const dialog = $("call-dialog");
    setText($("call-title"), call.operation);
    const facts = [
      ["Time", new Date(call.time * 1000).toISOString()],
      ["Status", call.status],
      ["Region", call.region],
      ["Account", call.account],
      ["Request id", call.request_id],
    ];
    if (call.error) facts.push(["Error", call.error]);
    if (call.injected) facts.push(["Injected", "yes (a fault rule)"]);
    if (call.truncated) {
      facts.push(["Truncated", `yes: ${call.omitted} items left out, ${call.size} bytes as sent`]);
    }
    $("call-facts").replaceChildren(
      ...facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]),
    );
    const answer = call.response === null || call.response === undefined ? {} : call.response;
    $("call-request").replaceChildren(bodyView(JSON.stringify(call.params || {}), "call-request-body", say));
    $("call-answer").replaceChildren(bodyView(JSON.stringify(answer), "call-answer-body", say));
    if (!dialog.open) dialog.showModal();
  }

  async function load() {
    let calls;
    if (state.browsing) {
      const query = new URLSearchParams({ limit: String(PAGE) });
      if (state.token !== null) query.set("next_token", state.token);
      const data = await admin(`calls?${query}`);
      calls = data.calls || [];
      state.next = data.next_token || null;
    } else {
      const data = await admin(`calls?newest=true&limit=${PAGE}`);
      calls = (data.calls || []).slice().reverse(); // newest first
    }
    render(calls);
  }

  function render(calls) {
    const before = state.pages.reduce((sum, p) => sum + p.count, 0);
    state.calls = calls;
    $("calls-previous").disabled = !state.browsing || state.pages.length === 0;
    $("calls-next").disabled = !state.browsing || state.next === null;
    $("calls-latest").hidden = !state.browsing;
    $("calls-browse").hidden = state.browsing;
    $("calls-previous").hidden = $("calls-next").hidden = !state.browsing;
    setText(
      $("call-count"),
      !calls.length
        ? ""
        : state.browsing
          ? `${before + 1}–${before + calls.length}, oldest first`
          : `last ${calls.length}`,
    );
    $("no-calls").hidden = calls.length > 0;
    const shown = JSON.stringify([state.browsing, before, calls.map((c) => [c.request_id, c.status])]);
    if (shown === state.shown) return;
    state.shown = shown;
    $("calls").replaceChildren(...calls.map(row));
  }

  function browse(how) {
    if (how === "oldest") {
      Object.assign(state, { browsing: true, pages: [], token: null, next: null });
    } else if (how === "latest") {
      Object.assign(state, { browsing: false, pages: [], token: null, next: null });
    } else if (how === "next" && state.next !== null) {
      state.pages.push({ token: state.token, count: state.calls.length });
      state.token = state.next;
      state.next = null;
    } else if (how === "previous" && state.pages.length) {
      state.token = state.pages.pop().token;
      state.next = null;
    } else {
      return Promise.resolve();
    }
    return load().catch((error) => say(error.message, "error"));
  }

  function wire() {
    $("calls-browse").addEventListener("click", () => browse("oldest"));
    $("calls-latest").addEventListener("click", () => browse("latest"));
    $("calls-previous").addEventListener("click", () => browse("previous"));
    $("calls-next").addEventListener("click", () => browse("next"));
    $("call-close").addEventListener("click", () => $("call-dialog").close());
  }

  return { load, wire };
}
