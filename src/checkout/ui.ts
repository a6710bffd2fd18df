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

export function details(rows: Array<[string, string]>): HTMLDListElement {
  return el("dl", {}, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", /^0x[0-9a-fA-F]+$/.test(v) ? { class: "hex" } : {}, v)]));
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
