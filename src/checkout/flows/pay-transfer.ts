import type { Hex } from "viem";
import { answerOf, api } from "../api.js";
import { formatAmount } from "../../money.js";
import { displayAmount, networkOf, transferRequest } from "../format.js";
import { qrSvg } from "../handoff.js";
import { pageContext } from "../page.js";
import { copyButton, details, el } from "../ui.js";
import type { ResolvePaymentResponse as Resolved } from "../../wire/index.js";

/** How often the page asks whether a transfer to the payment address has arrived and settled. */
const ARRIVAL_POLL_MS = 3_000;

/**
 * Paying without a browser wallet: a plain transfer of the exact amount to the payment's own address
 * (from an exchange withdrawal or any wallet app), as an EIP-681 request in a QR code, with the
 * address and amount to copy and the network and token named. The service settles it by itself.
 */
export function transferSection(r: Resolved): HTMLDetailsElement {
  const { symbol, localChain } = pageContext();
  const network = networkOf(r.chain_id, localChain).name;
  const amount = displayAmount(r.amount_units, symbol);
  // As a person types it into a withdrawal form: 12.5 for 12.500000.
  const plain = formatAmount(BigInt(r.amount_units)).replace(/\.?0+$/, "");
  const request = transferRequest(r.token, r.chain_id, r.deposit_address, r.amount_units);
  const qr = qrSvg(request, `QR code of a request to send ${amount} to this payment's address`);
  qr.id = "transfer-qr";
  qr.dataset.request = request;
  return el(
    "details",
    { class: "handoff", id: "pay-by-transfer" },
    el("summary", {}, "Pay from an exchange or another wallet"),
    el(
      "p",
      { id: "transfer-words" },
      `Send exactly ${amount} on ${network} (chain id ${r.chain_id}) to this payment's own address, from any wallet or an exchange withdrawal. Only ${symbol} on ${network} pays: another token or network does not.`,
    ),
    details([
      ["Address", r.deposit_address],
      ["Network", `${network} (chain id ${r.chain_id})`],
      ["Token", r.token],
    ]),
    el(
      "p",
      {},
      el("span", { id: "transfer-amount" }, amount),
      " ",
      copyButton(plain, { class: "copy", id: "copy-amount" }, { label: "Copy amount", copied: "Amount copied", failed: "Select to copy" }),
    ),
    el("p", { class: "muted" }, "Or scan this code with a wallet app: it fills in the token, the address and the amount."),
    el("div", { class: "qr-box" }, qr),
    el(
      "p",
      { class: "muted", id: "transfer-note" },
      "More than the amount goes to the merchant too, who can refund it. A refund goes back to the address that sent the transfer: from an exchange, to the exchange. This page says Paid once the transfer has arrived and settled.",
    ),
  );
}

/**
 * Waits for the intent's payment to arrive by any path (a transfer to its address, settled by the
 * service, or any other): resolve answers PAYMENT_CONFIRMING once it is mined and
 * PAYMENT_ALREADY_PROCESSED once final. Calls `arrived` with the settlement's hash on each change.
 * Stops when `stopped()` says so (the wallet path took over) or once final.
 */
export async function watchArrival(
  intent: string,
  stopped: () => boolean,
  arrived: (state: "confirming" | "paid", hash: Hex) => void,
  left?: AbortSignal,
): Promise<void> {
  // Leaving the route ends a request in flight too (and its network retries).
  const call = left ? { signal: left } : {};
  let state: "confirming" | null = null;
  while (!stopped()) {
    await new Promise((resolve) => setTimeout(resolve, ARRIVAL_POLL_MS));
    if (stopped()) return;
    const answer = await answerOf(api.resolvePayment({ intent }, call));
    if (answer.ok) continue;
    const error = answer.body.error;
    if (error !== "PAYMENT_CONFIRMING" && error !== "PAYMENT_ALREADY_PROCESSED") continue;
    const found = await answerOf(api.recoverPayment({ intent }, call));
    if (!found.ok || !found.body.found) continue;
    if (error === "PAYMENT_ALREADY_PROCESSED") {
      arrived("paid", found.body.tx_hash);
      return;
    }
    if (state === null) arrived("confirming", found.body.tx_hash);
    state = "confirming";
  }
}
