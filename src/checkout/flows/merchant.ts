import { isAddressEqual, type Address, type Hex } from "viem";
import type { ResponseOf } from "../../../client/src/index.js";
import { answerOf, api } from "../api.js";
import { connectWallet, walletError } from "../connect.js";
import { displayAmount, displayTime, networkOf, shortHex } from "../format.js";
import { addressOf, paymentsCsv, refundUnits, totals, plainAmount } from "../merchant-books.js";
import { networkBanner, pageContext, routeLeft, setTitle } from "../page.js";
import { button, copyButton, details, el, render, statusLine } from "../ui.js";
import { explain } from "../words.js";
import { subscribersSection } from "./merchant-subscribers.js";
import { holdsSection } from "./merchant-holds.js";

type Listed = ResponseOf<"listPayments">["payments"][number];

/** Pages loaded on their own while the range shown holds no payment (each a bounded number of reads). */
const AUTO_PAGES = 4;

/**
 * `#/merchant/<address>[/<view_token>]`: every payment to a wallet, read from the chain through
 * POST /v1/payments/list (the service keeps none), newest first, with the shown range's total, a CSV
 * of it for the books, a refund per row for the connected recipient wallet (prepared here, sent on the
 * refund page), and a subscription link's subscribers when the merchant pastes its read-only view token (taken out of the URL once read). With
 * no address, a field for one, or the wallet's own.
 */
export async function merchantFlow(rest: string, symbol: string): Promise<void> {
  document.getElementById("app")!.classList.add("wide");
  const [addressText = "", viewToken] = rest.split("/");
  const address = addressOf(addressText);
  setTitle("Payments received");
  if (!address) return chooseAddress(symbol);
  new MerchantPage(address as Address, symbol, viewToken).start();
}

/** No address yet: type one, or connect the wallet and use its account. */
function chooseAddress(_symbol: string): void {
  const status = statusLine();
  const input = el("input", { id: "address", type: "text", inputmode: "text", autocomplete: "off", spellcheck: "false", placeholder: "0x…" });
  const show = button("show", "Show payments", () => {
    const address = addressOf(input.value);
    if (!address) return status.set("error", "An address is 0x followed by 40 hex digits.");
    location.hash = `#/merchant/${address}`;
  });
  const connect = button("connect", "Use my wallet", async () => {
    const { chainId } = pageContext();
    try {
      const wallet = await connectWallet(chainId ?? 0);
      location.hash = `#/merchant/${wallet.account}`;
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  render(
    ...banner(),
    el("h1", {}, "Payments received"),
    el("div", { class: "card" }, el("label", { for: "address" }, "The wallet that receives the payments"), input, show, connect, status.node),
  );
}

function banner(): HTMLElement[] {
  const { chainId } = pageContext();
  return chainId !== null ? [networkBanner(chainId)] : [];
}

class MerchantPage {
  readonly #payments: Listed[] = [];
  #next: string | null = null;
  /** The dates the loaded pages cover: the oldest page's start, the first page's end (unix seconds). */
  #from: number | null = null;
  #to: number | null = null;
  /** The connected wallet, when it is the recipient: refunds are offered. */
  #recipientWallet = false;
  readonly #status = statusLine();
  readonly #list = el("ol", { id: "payments", class: "payments" });
  readonly #summary = el("p", { id: "summary", class: "summary" });
  readonly #more = el("div", { class: "actions" });
  readonly #walletLine = el("p", { id: "wallet-line", class: "muted" });

  constructor(
    private readonly recipient: Address,
    private readonly symbol: string,
    private readonly viewToken: string | undefined,
  ) {}

  start(): void {
    const connect = button("connect", "Connect wallet to refund", () => this.#connect(connect));
    render(
      ...banner(),
      el("h1", {}, "Payments received"),
      details([["Recipient", this.recipient]]),
      el("div", { class: "actions" }, connect),
      this.#walletLine,
      this.#summary,
      this.#list,
      this.#more,
      this.#status.node,
      subscribersSection(this.recipient, this.symbol, this.viewToken),
      holdsSection(this.recipient, this.symbol),
    );
    void this.#load(AUTO_PAGES);
  }

  async #connect(connectButton: HTMLButtonElement): Promise<void> {
    try {
      const wallet = await connectWallet(pageContext().chainId ?? 0);
      this.#recipientWallet = isAddressEqual(wallet.account, this.recipient);
      this.#walletLine.textContent = this.#recipientWallet
        ? `Connected: ${shortHex(wallet.account)}, the recipient. Refund a payment from its row.`
        : `Connected: ${shortHex(wallet.account)}, not this recipient: only ${shortHex(this.recipient)} can refund its payments.`;
      this.#walletLine.dataset.recipient = String(this.#recipientWallet);
      if (this.#recipientWallet) connectButton.remove();
      this.#draw();
    } catch (error) {
      this.#status.set("error", walletError(error));
    }
  }

  /** Loads the next page, and up to `pages` in all while none of them adds a payment. */
  async #load(pages: number): Promise<void> {
    const signal = routeLeft();
    const shown = this.#payments.length;
    this.#status.set("wait", "Reading the chain…");
    for (let i = 0; i < pages; i++) {
      const answer = await answerOf(api.listPayments({ recipient: this.recipient, limit: 50, ...(this.#next !== null ? { before_block: this.#next } : {}) }));
      if (signal.aborted) return;
      if (!answer.ok) {
        this.#status.set("error", explain(answer.body.error, answer.body.action, answer.body.retry_after));
        return this.#draw();
      }
      this.#to ??= answer.body.to_timestamp;
      this.#from = answer.body.from_timestamp;
      this.#payments.push(...answer.body.payments);
      this.#next = answer.body.next_before_block;
      if (this.#payments.length > shown || this.#next === null) break;
    }
    this.#status.clear();
    this.#draw();
  }

  #draw(): void {
    const t = totals(this.#payments);
    // The merchant's own dates, never block numbers: what the loaded pages cover.
    const from = this.#from !== null ? displayTime(this.#from) : "?";
    const to = this.#to !== null ? displayTime(this.#to) : "?";
    this.#summary.replaceChildren(
      t.count === 0
        ? el("span", { id: "empty" }, this.#next === null ? "No payments to this address yet." : `No payments to this address from ${from} to ${to}.`)
        : el(
            "span",
            { id: "total" },
            `${t.count} payment${t.count === 1 ? "" : "s"}, total ${displayAmount(t.amount, this.symbol)} (fees ${displayAmount(t.fee, this.symbol)}, net ${displayAmount(t.net, this.symbol)})`,
          ),
      el("span", { class: "muted", id: "range" }, this.#next === null ? ` · from the first to ${to} (all)` : ` · from ${from} to ${to}`),
    );
    this.#list.replaceChildren(...this.#payments.map((p, i) => this.#row(p, i)));
    const older = this.#next !== null ? button("older", `Load payments before ${from}`, () => this.#load(AUTO_PAGES)) : null;
    const csv = t.count > 0 ? button("csv", "Download CSV", () => this.#download()) : null;
    this.#more.replaceChildren(...[older, csv].filter((b): b is HTMLButtonElement => b !== null));
  }

  #row(p: Listed, index: number): HTMLElement {
    const net = BigInt(p.amount_units) - BigInt(p.fee_units);
    const payer =
      p.payer === null
        ? el("span", { class: "payer unknown" }, "several wallets paid: ask the buyer")
        : el(
            "span",
            { class: "payer" },
            el("code", { title: p.payer }, shortHex(p.payer)),
            " ",
            copyButton(p.payer, { class: "copy", "aria-label": `Copy ${p.payer}` }, { label: "Copy", copied: "Copied", failed: "Select to copy" }),
          );
    const row = el(
      "li",
      { class: "payment card", "data-tx": p.tx_hash },
      el(
        "div",
        { class: "payment-head" },
        el("span", { class: "amount" }, displayAmount(p.amount_units, this.symbol)),
        el("span", { class: "when" }, displayTime(p.timestamp)),
      ),
      el(
        "dl",
        {},
        el("dt", {}, "Fee"),
        el("dd", { class: "fee" }, `${displayAmount(p.fee_units, this.symbol)} (net ${displayAmount(net, this.symbol)})`),
        el("dt", {}, "From"),
        el("dd", {}, payer),
        el("dt", {}, "How"),
        el("dd", { class: "how" }, `${SETTLED_BY[p.settled_by]}${p.final ? "" : " · confirming"}`),
      ),
      transaction(p.tx_hash as Hex),
    );
    if (this.#recipientWallet && p.reference !== null && p.payer !== null && p.final) row.append(this.#refund(p as Listed & { payer: string }, index));
    return row;
  }

  /** Refund: the amount (full by default), prepared here, then sent from the existing refund page. */
  #refund(p: Listed & { payer: string }, index: number): HTMLElement {
    const ceiling = BigInt(p.amount_units);
    const status = statusLine();
    status.node.id = `refund-status-${index}`;
    const amount = el("input", {
      id: `refund-amount-${index}`,
      class: "refund-amount",
      type: "text",
      inputmode: "decimal",
      value: plainAmount(ceiling).replace(/\.?0+$/, ""),
    });
    const form = el(
      "div",
      { class: "refund-form", hidden: "" },
      el("label", { for: `refund-amount-${index}` }, `Refund amount (at most ${displayAmount(ceiling, this.symbol)}, to ${shortHex(p.payer)})`),
      amount,
      button(`refund-prepare-${index}`, "Continue to refund", async () => {
        const units = refundUnits(amount.value, ceiling);
        if (units === null) return status.set("error", `An amount above zero and at most ${displayAmount(ceiling, this.symbol)}.`);
        const answer = await answerOf(api.prepareRefund({ tx_hash: p.tx_hash, reference: p.reference!, amount: units.toString() }));
        if (!answer.ok) return status.set("error", explain(answer.body.error, answer.body.action, answer.body.retry_after));
        // The refund token goes in the fragment only: the refund page reads it from there.
        location.hash = `#/refund/${answer.body.refund_token}`;
      }),
      status.node,
    );
    const open = el("button", { type: "button", class: "refund", id: `refund-${index}` }, "Refund");
    open.addEventListener("click", () => {
      form.hidden = false;
      open.remove();
      amount.focus();
    });
    return el("div", { class: "refund-box" }, open, form);
  }

  #download(): void {
    const csv = paymentsCsv(this.#payments);
    const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
    const day = (t: number | null) => (t === null ? "" : new Date(t * 1000).toISOString().slice(0, 10));
    const a = el("a", { href: url, download: `payments-${this.recipient}-${day(this.#from)}-to-${day(this.#to)}.csv`, hidden: "" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

const SETTLED_BY: Record<Listed["settled_by"], string> = {
  pay: "paid from a wallet",
  deposit: "transfer to a payment address",
  x402: "x402",
  forward: "forwarded from a payment address",
};

/** A row's transaction: its explorer page, or on the local chain its hash alone (no explorer there). */
function transaction(hash: Hex): HTMLElement {
  const { chainId, localChain } = pageContext();
  const explorer = networkOf(chainId ?? 0, localChain).explorer;
  return el(
    "p",
    { class: "tx" },
    el("code", { title: hash, class: "tx-hash" }, shortHex(hash)),
    " · ",
    explorer
      ? el("a", { href: explorer.tx(hash), class: "explorer-link", target: "_blank", rel: "noopener noreferrer" }, `View on ${explorer.name}`)
      : el("span", { class: "muted no-explorer" }, "local chain: no explorer"),
  );
}
