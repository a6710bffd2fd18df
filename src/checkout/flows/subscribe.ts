import { encodeFunctionData, erc20Abi, type Address, type Hex } from "viem";
import { allowanceSentence, allowanceTotal, allowanceWords, readAllowance, suggestedPeriods, UNLIMITED_WORDS } from "../allowance.js";
import { connectWallet, walletError } from "../connect.js";
import { parseAmount } from "../../money.js";
import { displayAmount, displayTime, periodWords } from "../format.js";
import { folded, networkBanner, returnLink, setTitle, validity, walletNotice } from "../page.js";
import { button, details, el, render, statusLine } from "../ui.js";
import { answerOf, api } from "../api.js";
import { explain } from "../words.js";
import { loadOrExplain } from "./common.js";
import type { ResolveSubscriptionResponse } from "../../wire/index.js";

/** The terms as resolve serves them (the wire type, through the typed client). */
type Terms = ResolveSubscriptionResponse;

/**
 * `#/subscribe/<setup_token>`: shows the terms exactly as the wallet signs them, signs, sets the
 * allowance, and hands payer + signature back to the merchant (return URL fragment and/or
 * postMessage). `#/subscribe/<link>` with a subscription link's token: resolve mints this visitor's
 * own setup (kept for the tab's session, so a reload shows the same terms), and the page posts payer
 * + signature to POST /v1/links/subscribe itself: no merchant server in the flow. The subscription
 * capability never reaches this page.
 */
export async function subscribeFlow(token: string, symbol: string): Promise<void> {
  const status = statusLine();
  // A link token's kind marker is `lk` (the service decides what it is worth).
  const throughLink = token.startsWith("lk.");
  const keptKey = `svc:link-setup:${token}`;
  let kept = throughLink ? sessionStorage.getItem(keptKey) : null;
  // The visitor's setup from an earlier load of this tab, unless it has expired: then a fresh one.
  if (kept && !(await answerOf(api.resolveSubscription({ setup_token: kept }))).ok) {
    sessionStorage.removeItem(keptKey);
    kept = null;
  }
  const t = await loadOrExplain("Subscription", api.resolveSubscription({ setup_token: kept ?? token }), status);
  if (!t) return;
  if (t.setup_token) sessionStorage.setItem(keptKey, t.setup_token);
  const setupToken = t.setup_token ?? kept ?? token;
  const amount = BigInt(t.amount_units);
  const maxGas = BigInt(t.max_gas_reimbursement);
  const format = (units: bigint) => displayAmount(units, symbol);
  // The buyer chooses how many periods the allowance covers; it is added to what their other
  // subscriptions already have (one allowance serves them all).
  const { suggested, max } = suggestedPeriods(t);
  let periods: bigint | null = suggested;
  const periodsInput = el("input", { type: "number", id: "periods", min: "1", max: String(max), step: "1", value: String(suggested), inputmode: "numeric" });
  const sentence = el("p", { id: "allowance-words" });
  const result = el("div", { id: "result" });
  const choose = () => {
    const n = /^[0-9]{1,4}$/.test(periodsInput.value) ? BigInt(periodsInput.value) : 0n;
    periods = n >= 1n && n <= max ? n : null;
    sentence.textContent = periods === null ? `Choose from 1 to ${max} periods.` : allowanceSentence(amount, maxGas, periods, format);
    sign.disabled = periods === null;
  };
  const sign = button("subscribe", "Connect wallet, sign and allow", async () => {
    if (periods === null) return;
    const allowance = (amount + maxGas) * periods;
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
      if (throughLink) {
        // A subscription link: the service keeps the subscription for the merchant.
        status.set("wait", "Subscribing…");
        const post = () => subscribeOnceSeen(() => answerOf(api.subscribeLink({ setup_token: setupToken, payer: wallet.account, signature })));
        let answer = await post();
        // The service makes the first charge: the subscription counts once it is settled.
        for (let asked = 1; answer.ok && answer.body.state === "PENDING" && asked < SETTLE_TRIES; asked++) {
          status.set("wait", "Your first charge is confirming…");
          await new Promise((resolve) => setTimeout(resolve, SETTLE_EVERY_MS));
          answer = await post();
        }
        if (answer.ok && answer.body.state === "PENDING") {
          status.set("error", "Your first charge has not settled yet: open this page again later to see the subscription.");
          return;
        }
        if (!answer.ok) {
          status.set("error", explain(answer.body.error, answer.body.action, answer.body.retry_after));
          return;
        }
        const done = answer.body;
        sessionStorage.removeItem(keptKey);
        sign.remove();
        document.getElementById("wallet-notice")?.remove();
        status.set(
          "ok",
          `Subscribed: ${displayAmount(parseAmount(done.amount) ?? 0n, symbol)} ${periodWords(done.period)}.${total === null ? ` ${UNLIMITED_WORDS}` : ""}`,
        );
        const back = returnLink(t.return_url);
        result.replaceChildren(
          details([
            ["Payer", wallet.account],
            ["Subscription", done.subscription_id],
          ]),
          ...(back ? [back] : []),
        );
        return;
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
  periodsInput.addEventListener("input", choose);
  choose();
  setTitle(`Subscribe ${displayAmount(t.amount_units, symbol)} ${periodWords(t.period)}`);
  render(
    networkBanner(t.chain_id),
    el("h1", {}, "Subscribe"),
    el(
      "div",
      { class: "card" },
      el("div", { class: "amount", id: "amount" }, displayAmount(t.amount_units, symbol)),
      el("p", { id: "period" }, periodWords(t.period)),
      details([
        ["To", t.recipient],
        ["Starts", displayTime(t.start)],
        ["Ends", t.end === 0 ? "no end (cancel any time)" : displayTime(t.end)],
      ]),
      el("label", { class: "periods", for: "periods" }, "Allow for ", periodsInput, ` ${max === 1n ? "period" : "periods"}`),
      sentence,
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

/** How often, and how far apart, the page asks after a first charge still confirming (the service makes it active by itself once it settles). */
const SETTLE_TRIES = 120;
const SETTLE_EVERY_MS = 3_000;

/** How often, and how far apart, the page asks again while the service's node has not yet seen the allowance just mined. */
const SEEN_TRIES = 5;
const SEEN_EVERY_MS = 2_000;

/**
 * Posts the subscription, asking again a few times while the answer is INSUFFICIENT_ALLOWANCE or
 * INSUFFICIENT_BALANCE (the allowance was mined as the wallet's node saw it, and the service's node
 * may be a block or two behind), or NOT_DUE for a few seconds (the chain's time a moment behind the
 * terms' start). A refusal that outlasts that is the answer.
 */
async function subscribeOnceSeen<T extends { ok: boolean; body: unknown }>(post: () => Promise<T>): Promise<T> {
  for (let tried = 1; ; tried++) {
    const answer = await post();
    const body = answer.ok ? undefined : (answer.body as { error?: string; retry_after?: number });
    const error = body?.error;
    // NOT_DUE keeps no place: a chain a moment behind the terms' start is asked again once it is not.
    const soon = error === "NOT_DUE" && (body?.retry_after ?? Infinity) <= 5;
    if (tried >= SEEN_TRIES || (!soon && error !== "INSUFFICIENT_ALLOWANCE" && error !== "INSUFFICIENT_BALANCE")) return answer;
    await new Promise((resolve) => setTimeout(resolve, soon ? body!.retry_after! * 1000 : SEEN_EVERY_MS));
  }
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
