import { encodeFunctionData, erc20Abi, type Address, type Hex } from "viem";
import { allowanceTotal, allowanceWords, readAllowance, UNLIMITED_WORDS } from "../allowance.js";
import { connectWallet, walletError } from "../connect.js";
import { parseAmount } from "../../money.js";
import { displayAmount, displayTime } from "../format.js";
import { folded, networkBanner, setTitle, validity, walletNotice } from "../page.js";
import { button, details, el, render, statusLine } from "../ui.js";
import { api } from "../api.js";
import { loadOrExplain } from "./common.js";
import type { ResolveSubscriptionResponse } from "../../wire/index.js";

/** The terms as resolve serves them (the wire type, through the typed client). */
type Terms = ResolveSubscriptionResponse;

/** How many periods the suggested allowance covers when the terms have no end. */
const ALLOWANCE_PERIODS = 12n;

function every(seconds: number): string {
  for (const [unit, size] of [
    ["day", 86_400],
    ["hour", 3600],
    ["minute", 60],
  ] as const) {
    if (seconds % size === 0) return `every ${seconds / size} ${unit}${seconds / size === 1 ? "" : "s"}`;
  }
  return `every ${seconds} seconds`;
}

/**
 * `#/subscribe/<setup_token>`: shows the terms exactly as the wallet signs them, signs, sets the
 * allowance, and hands payer + signature back to the merchant (return URL fragment and/or
 * postMessage). The subscription capability never reaches this page.
 */
export async function subscribeFlow(setupToken: string, symbol: string): Promise<void> {
  const status = statusLine();
  const t = await loadOrExplain("Subscription", api.resolveSubscription({ setup_token: setupToken }), status);
  if (!t) return;
  const periods = t.end === 0 ? ALLOWANCE_PERIODS : BigInt(Math.max(1, Math.ceil((t.end - t.start) / t.period)));
  // What this subscription adds to the payer's allowance: one allowance serves all their subscriptions.
  const allowance = (BigInt(t.amount_units) + BigInt(t.max_gas_reimbursement)) * periods;
  const result = el("div", { id: "result" });
  const sign = button("subscribe", "Connect wallet, sign and allow", async () => {
    try {
      const wallet = await connectWallet(t.chain_id);
      status.set("wait", "Sign the subscription terms in your wallet…");
      // Exactly what the service served (its types carry EIP712Domain), with the signing account as payer.
      const typedData = {
        domain: t.typed_data.domain,
        types: t.typed_data.types,
        primaryType: t.typed_data.primaryType,
        message: { ...t.typed_data.message, payer: wallet.account },
      };
      const signature = await wallet.signTypedData(typedData);
      // Never lower or replace what the payer's other subscriptions rely on: add to the current allowance.
      const current = await readAllowance(wallet, t.token, wallet.account, t.contract);
      const total = allowanceTotal(current, allowance);
      if (total !== null) {
        status.set("wait", `${allowanceWords(current, allowance, total, (units) => displayAmount(units, symbol))} Confirm in your wallet…`);
        const hash = await wallet.sendTransaction({
          to: t.token,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [t.contract, total] }),
        });
        await wallet.waitForReceipt(hash);
      }
      sign.remove();
      document.getElementById("wallet-notice")?.remove();
      handBack(t, wallet.account, signature);
      status.set("ok", `Subscribed: the merchant can now start the subscription.${total === null ? ` ${UNLIMITED_WORDS}` : ""}`);
      result.replaceChildren(details([["Payer", wallet.account]]), el("textarea", { id: "signature", rows: "3", readonly: "" }, signature));
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  setTitle(`Subscribe ${displayAmount(t.amount_units, symbol)} ${every(t.period)}`);
  render(
    networkBanner(t.chain_id),
    el("h1", {}, "Subscribe"),
    el(
      "div",
      { class: "card" },
      el("div", { class: "amount", id: "amount" }, displayAmount(t.amount_units, symbol)),
      el("p", { id: "period" }, every(t.period)),
      details([
        ["To", t.recipient],
        ["Starts", displayTime(t.start)],
        ["Ends", t.end === 0 ? "no end (cancel any time)" : displayTime(t.end)],
        ["Allowance added", `${displayAmount(allowance, symbol)} (${periods} periods), on top of what your other subscriptions already have`],
      ]),
      validity("Offer valid until", t.expires_at),
      folded("Fees and contract", [
        ["Service fee", `${t.fee_bps / 100}% + ${displayAmount(parseAmount(t.network_fee) ?? 0n, symbol)}, paid by the merchant`],
        ["Gas reimbursement", `at most ${displayAmount(t.max_gas_reimbursement, symbol)} per charge`],
        ["Contract", t.contract],
        ["Token", t.token],
        ["Chain id", String(t.chain_id)],
      ]),
      sign,
      status.node,
      walletNotice(t.chain_id, sign),
      result,
    ),
  );
}

/**
 * Gives payer and signature to the merchant: a return URL (fragment only), and postMessage to the
 * opener, only ever to the return URL's origin (never "*": another page could have opened this one).
 * Without a return URL there is no known origin, so nothing is posted.
 */
function handBack(t: Terms, payer: Address, signature: Hex): void {
  const message = { type: "svc:subscription-signed", payer, signature };
  const target = window.opener ?? (window.parent !== window ? window.parent : null);
  if (target && t.return_url) target.postMessage(message, new URL(t.return_url).origin);
  if (t.return_url) {
    const url = new URL(t.return_url);
    url.hash = new URLSearchParams({ payer, signature }).toString();
    setTimeout(() => location.assign(url.toString()), 1200);
  }
}
