import type { Hex } from "viem";
import { answerOf, api, type ApiAnswer } from "../api.js";
import { displayAmount } from "../format.js";
import { forgetPayment, keepPayment, recallPayment, type KeptPayment } from "../payment-session.js";
import { errorPage, folded, networkBanner, pageContext, returnLink, routeLeft, setTitle, transactionLink, validity, walletNotice } from "../page.js";
import { confirmingStep } from "../resolve-state.js";
import { details, el, render } from "../ui.js";
import { explain } from "../words.js";
import type { ResolvePaymentResponse as ResolvedPayment } from "../../wire/index.js";
import type { Status } from "./common.js";
import { transferSection } from "./pay-transfer.js";

/** What the pay page works from: the resolve answer, plus the fresh intent when it came from a link. */
export type Resolved = ResolvedPayment & { intent?: string; link_id?: Hex };

const isLink = (token: string) => token.startsWith("lk.");

/**
 * Resolves the page's token. A link token first looks for the payment this tab already minted
 * through it: still open, it is shown again; paid, the page says Paid; expired, a new one is minted.
 * An intent already paid shows Paid with the transaction this tab sent, if it sent it. Renders the
 * explanation (or the Paid page) and returns null when there is nothing to pay, or when the page
 * moved to another route meanwhile (it renders nothing then).
 */
export async function resolvePayment(token: string, status: Status): Promise<Resolved | null> {
  const kept = recallPayment(token);
  const left = routeLeft();
  if (isLink(token) && kept?.intent) {
    const again = await resolveSettling(kept.intent, status, left);
    if (!again) return null;
    if (again.ok) return { ...again.body, intent: kept.intent };
    if (again.body.error === "PAYMENT_ALREADY_PROCESSED") {
      paidPage(kept, status);
      return null;
    }
    forgetPayment(token); // expired or refused: mint a fresh one below
  }
  const answer = await resolveSettling(token, status, left);
  if (!answer) return null;
  if (!answer.ok) {
    const b = answer.body;
    if (b.error === "PAYMENT_ALREADY_PROCESSED") {
      paidPage(isLink(token) ? null : kept, status);
      return null;
    }
    setTitle(b.error === "INTENT_EXPIRED" || b.error === "LINK_CLOSED" ? "Expired" : "Payment");
    status.set("error", explain(b.error, b.action, b.retry_after));
    errorPage("Payment", status.node);
    return null;
  }
  const r = answer.body;
  const returnUrl = r.return_url ? { returnUrl: r.return_url, reference: r.reference } : {};
  if (isLink(token)) {
    if (r.intent) keepPayment(token, { intent: r.intent, amountUnits: r.amount_units, expiresAt: r.expires_at, ...returnUrl });
  } else if (!kept) {
    keepPayment(token, { amountUnits: r.amount_units, expiresAt: r.expires_at, ...returnUrl });
  }
  return r;
}

/**
 * Resolves `intent`; while the answer is PAYMENT_CONFIRMING (a payment for it is mined, not yet
 * final), shows so with no pay button and asks again every CONFIRMING_POLL_MS (a retryable error
 * meanwhile waits its Retry-After and asks again). Returns the first other answer; null once the page
 * has moved to another route (`left`).
 */
async function resolveSettling(intent: string, status: Status, left: AbortSignal): Promise<ApiAnswer<Resolved> | null> {
  let confirming = false;
  for (;;) {
    const answer: ApiAnswer<Resolved> = await answerOf(api.resolvePayment({ intent }, { signal: left }));
    if (left.aborted) return null;
    const step = confirmingStep(answer, confirming);
    if (step.next === "done") return answer;
    if (!confirming) {
      confirming = true;
      setTitle("Confirming");
      status.set("wait", explain("PAYMENT_CONFIRMING", "WAIT"));
      errorPage("Payment", status.node);
    }
    await new Promise((resolve) => setTimeout(resolve, step.waitMs));
    if (left.aborted) return null;
  }
}

/** Remembers the transaction sent, so a reload can show it with Paid. */
export function rememberTransaction(token: string, hash: Hex): void {
  const kept = recallPayment(token);
  if (kept) keepPayment(token, { ...kept, txHash: hash });
}

/** The pay page: amount, recipient, network, validity with a countdown; reference and contracts folded. */
export function payPage(r: Resolved, pay: HTMLButtonElement, status: Status): void {
  const { symbol } = pageContext();
  const amount = displayAmount(r.amount_units, symbol);
  setTitle(`Pay ${amount}`);
  render(
    networkBanner(r.chain_id),
    el("h1", {}, "Pay"),
    el(
      "div",
      { class: "card" },
      el("div", { class: "amount", id: "amount" }, amount),
      details([["To", r.recipient]]),
      validity("Valid until", r.expires_at, () => {
        if (status.node.dataset.state === "wait" || status.node.dataset.state === "ok") return; // a payment is under way: verify decides
        pay.remove();
        document.getElementById("wallet-notice")?.remove();
        document.getElementById("pay-by-transfer")?.remove();
        setTitle("Expired");
        status.set("error", explain("INTENT_EXPIRED", undefined));
      }),
      folded("Payment details", [
        ["Reference", r.reference],
        ["Contract", r.splitter],
        ["Token", r.token],
        ["Chain id", String(r.chain_id)],
      ]),
      pay,
      status.node,
      walletNotice(r.chain_id, pay),
      transferSection(r),
    ),
  );
}

/** Once verify says valid: Paid, the explorer link, and the way back when the merchant gave one. */
export function showPaid(status: Status, hash: Hex, returnUrl: string | undefined, reference: Hex): void {
  setTitle("Paid");
  const heading = document.querySelector("h1");
  if (heading) heading.textContent = "Paid";
  document.getElementById("wallet-notice")?.remove();
  document.getElementById("validity")?.remove();
  document.getElementById("pay-by-transfer")?.remove();
  status.set("ok", "Paid.", transactionLink(hash), returnLink(returnUrl, { txHash: hash, reference }));
}

/** The page for a payment already made (a reload after paying). */
function paidPage(p: KeptPayment | null, status: Status): void {
  const { symbol, chainId } = pageContext();
  setTitle("Paid");
  status.set(
    "ok",
    p?.txHash ? "Paid. Nothing more is owed." : explain("PAYMENT_ALREADY_PROCESSED", undefined),
    p?.txHash ? transactionLink(p.txHash) : null,
    returnLink(p?.returnUrl, { txHash: p?.txHash, reference: p?.reference }),
  );
  render(
    ...(chainId !== null ? [networkBanner(chainId)] : []),
    el("h1", {}, "Paid"),
    el("div", { class: "card" }, p ? el("div", { class: "amount", id: "amount" }, displayAmount(p.amountUnits, symbol)) : null, status.node),
  );
}
