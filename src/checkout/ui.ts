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

/** Words for the API's error codes a buyer can meet. */
export function explain(error: string | undefined, action: string | undefined, retryAfter?: number): string {
  const known: Record<string, string> = {
    INTENT_EXPIRED: "This payment request has expired. Ask the merchant for a new one.",
    PAYMENT_ALREADY_PROCESSED: "This payment was already made. Nothing more is owed.",
    LINK_CLOSED: "This payment link is closed or expired.",
    INVALID_INTENT: "This payment link is not valid.",
    INVALID_SETUP_TOKEN: "This subscription link is not valid.",
    SETUP_TOKEN_EXPIRED: "This subscription link has expired. Ask the merchant for a new one.",
    INVALID_APPROVE_TOKEN: "This approval link is not valid.",
    APPROVE_TOKEN_EXPIRED: "This approval link has expired. Ask the merchant for a new one.",
    INVALID_CANCEL_TOKEN: "This cancellation link is not valid.",
    CANCEL_TOKEN_EXPIRED: "This cancellation link has expired. Ask the merchant for a new one.",
    INVALID_REFUND_TOKEN: "This refund link is not valid.",
    REFUND_TOKEN_EXPIRED: "This refund link has expired. Prepare the refund again.",
    AMOUNT_OUT_OF_BOUNDS: "This amount is outside what the service accepts.",
    ACCOUNT_BLOCKED: "The token refuses this payment: one of the accounts is blocked. Nothing was sent; contact the merchant.",
    TOKEN_PAUSED: "Transfers of this token are paused for now. Nothing was sent.",
  };
  const text = known[error ?? ""] ?? `The service answered ${error ?? "an error"}.`;
  return action === "RETRY" ? `${text} Try again${retryAfter ? ` in ${retryAfter} s` : ""}.` : text;
}
