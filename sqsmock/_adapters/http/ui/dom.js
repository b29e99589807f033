// sqsmock's web UI: building the page without markup, JSON bodies as a tree, copying, asking.
//
// Nothing here parses HTML: every node is made with createElement and every text from the
// server is set with textContent, so a body that holds markup stays text.

export const $ = (id) => document.getElementById(id);

export function el(tag, props, ...children) {
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

export function setText(node, value) {
  const text = String(value);
  if (node.textContent !== text) node.textContent = text;
}

// -- JSON as a collapsible tree ----------------------------------------------------------------

// The body parsed, when it is a JSON object or array (a bare number or string stays as sent).
function parsed(text) {
  if (typeof text !== "string" || !/^\s*[[{]/.test(text)) return undefined;
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

function leaf(value) {
  const kind = value === null ? "null" : typeof value;
  return el("span", { class: `json-${kind}`, text: JSON.stringify(value) });
}

// One value: a leaf, or a <details> of its members (open to a few levels). ``path`` names the
// node within its body, so a redrawn body can keep what the user folded (foldState).
function node(value, key, depth, path = "$") {
  const label = key === undefined ? null : el("span", { class: "json-key", text: `${key}: ` });
  if (value === null || typeof value !== "object") {
    return el("div", { class: "json-line" }, label, leaf(value));
  }
  const array = Array.isArray(value);
  const entries = array ? value.map((v, i) => [i, v]) : Object.entries(value);
  const [open, close] = array ? ["[", "]"] : ["{", "}"];
  const size = `${entries.length} ${array ? "item" : "key"}${entries.length === 1 ? "" : "s"}`;
  if (!entries.length) return el("div", { class: "json-line" }, label, open + close);
  return el(
    "details",
    { class: "json-node", open: depth < 4, "data-testid": "json-node", dataset: { path } },
    el("summary", {}, label, open, el("span", { class: "json-size", text: ` ${size} ${close}` })),
    el(
      "div",
      { class: "json-members" },
      ...entries.map(([k, v]) => node(v, array ? k : JSON.stringify(k), depth + 1, `${path}/${k}`)),
    ),
    el("div", { class: "json-close", text: close }),
  );
}

// -- copying -----------------------------------------------------------------------------------

// The clipboard API where the page may use it (a secure context: https, localhost, 127.0.0.1),
// else a hidden textarea and the copy command (plain http to another host).
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall back below
    }
  }
  const area = el("textarea", { class: "offscreen", readonly: true });
  area.value = text;
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } finally {
    area.remove();
  }
  return done;
}

// Bodies longer than this start as text; their tree is built when asked for.
const TREE_AT_ONCE = 65536;

// A body (a message's, a call's request or answer): a JSON object or array as a collapsible
// tree with a Raw toggle, anything else as text; with a Copy button copying the text as sent.
export function bodyView(text, testid, say) {
  const raw = el("pre", { class: "body", "data-testid": testid, text });
  const value = parsed(text);
  const copy = el("button", {
    type: "button",
    class: "small",
    "data-testid": "copy",
    text: "Copy",
    onclick: async () => {
      const done = await copyText(text);
      if (say) say(done ? "Copied" : "The browser refused to copy", done ? "ok" : "error");
    },
  });
  const tools = el("div", { class: "body-tools" }, copy);
  if (value === undefined) return el("div", { class: "body-view" }, tools, raw);
  const tree = el("div", { class: "body json", "data-testid": "json" });
  const show = (asTree) => {
    if (asTree && !tree.firstChild) tree.append(node(value, undefined, 0));
    raw.hidden = asTree;
    tree.hidden = !asTree;
    toggle.textContent = asTree ? "Raw" : "Tree";
  };
  const toggle = el("button", {
    type: "button",
    class: "small",
    "data-testid": "raw",
    onclick: () => show(!raw.hidden),
  });
  tools.prepend(toggle);
  show(text.length <= TREE_AT_ONCE);
  return el("div", { class: "body-view" }, tools, tree, raw);
}

// What the user folded and whether they chose Raw, in the bodies within ``root``: taken
// before a list is redrawn (foldState) and put back on the new one (restoreFolds).
export function foldState(root) {
  const state = { raw: root.querySelector("pre.body:not([hidden])") !== null, open: new Map() };
  for (const d of root.querySelectorAll("details.json-node")) state.open.set(d.dataset.path, d.open);
  return state;
}

export function restoreFolds(root, state) {
  const toggle = root.querySelector('[data-testid="raw"]');
  const raw = root.querySelector("pre.body");
  if (toggle && raw && state.raw !== !raw.hidden) toggle.click();
  for (const d of root.querySelectorAll("details.json-node")) {
    const open = state.open.get(d.dataset.path);
    if (open !== undefined) d.open = open;
  }
}

// -- asking before an action that cannot be undone -------------------------------------------

// Resolves true when the user confirms, false when they cancel (button, Escape).
export function confirmAction(message, verb) {
  const dialog = $("confirm-dialog");
  setText($("confirm-text"), message);
  setText($("confirm-yes"), verb);
  return new Promise((resolve) => {
    const done = (answer) => {
      $("confirm-yes").removeEventListener("click", yes);
      $("confirm-no").removeEventListener("click", no);
      dialog.removeEventListener("cancel", no);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const yes = () => done(true);
    const no = (event) => {
      if (event) event.preventDefault();
      done(false);
    };
    $("confirm-yes").addEventListener("click", yes);
    $("confirm-no").addEventListener("click", no);
    dialog.addEventListener("cancel", no);
    dialog.showModal();
    $("confirm-no").focus();
  });
}
