import { hexGroups } from "./format.js";

/** A few DOM helpers: the checkout renders plain elements, with text only (never HTML from data). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string | null>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) if (child !== null) node.append(child);
  return node;
}

export function render(...nodes: Node[]): void {
  document.getElementById("app")!.replaceChildren(...nodes);
}

/** An address or hash, in full: groups of four that never break mid-way, and a button that copies it. */
function hexValue(value: string): HTMLElement {
  const groups = hexGroups(value);
  const text = el("span", { class: "hex-value", title: value });
  groups.forEach((g, i) => {
    if (i > 0) text.append(el("wbr"));
    text.append(el("span", { class: "hex-group" }, g));
  });
  const copy = copyButton(value, { class: "copy", "aria-label": `Copy ${value}` }, { label: "Copy", copied: "Copied", failed: "Select to copy" });
  return el("span", { class: "hex" }, text, copy);
}

/** A button that copies `value` to the clipboard (nothing leaves the device) and says how it went. */
export function copyButton(value: string, attrs: Record<string, string>, words: { label: string; copied: string; failed: string }): HTMLButtonElement {
  const copy = el("button", { type: "button", ...attrs }, words.label);
  copy.addEventListener("click", () => {
    void navigator.clipboard.writeText(value).then(
      () => (copy.textContent = words.copied),
      () => (copy.textContent = words.failed),
    );
  });
  return copy;
}

const HEX = /^0x([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;

/** A definition value: an address or hash as `hexValue`, anything else as text. */
function definition(value: string): HTMLElement {
  return HEX.test(value) ? el("dd", { class: "hex" }, hexValue(value)) : el("dd", {}, value);
}

export function details(rows: Array<[string, string]>): HTMLDListElement {
  return el("dl", {}, ...rows.flatMap(([k, v]) => [el("dt", {}, k), definition(v)]));
}

export type StatusKind = "ok" | "wait" | "error";

/** A status line the flows update as they go (the one element tests and people read). */
export function statusLine(): { node: HTMLElement; set(kind: StatusKind, text: string, ...more: Array<Node | null>): void; clear(): void } {
  const node = el("div", { id: "status", role: "status" });
  return {
    node,
    set(kind, text, ...more) {
      node.className = `status ${kind}`;
      node.dataset.state = kind;
      node.replaceChildren(el("span", { class: "status-text" }, text), ...more.filter((n): n is Node => n !== null));
    },
    clear() {
      node.className = "";
      node.textContent = "";
      delete node.dataset.state;
    },
  };
}

export function button(id: string, text: string, onClick: () => Promise<void> | void): HTMLButtonElement {
  const b = el("button", { id, type: "button" }, text);
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await onClick();
    } finally {
      b.disabled = false;
    }
  });
  return b;
}
