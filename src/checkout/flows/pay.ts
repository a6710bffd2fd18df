import { encodeAbiParameters, encodeFunctionData, erc20Abi, keccak256, type Hex } from "viem";
import { splitterAbi } from "../../generated/contracts.js";
import { receiveAuthorizationTypedData } from "../../chain/token-authorizations.js";
import { answerOf, api } from "../api.js";
import { connectWallet, walletError } from "../connect.js";
import { routeLeft, transactionLink } from "../page.js";
import { button, statusLine } from "../ui.js";
import type { Wallet } from "../wallet.js";
import type { Status } from "./common.js";
import { authorizationCall } from "./pay-call.js";
import { watchArrival } from "./pay-transfer.js";
import { payPage, rememberTransaction, resolvePayment, showPaid, type Resolved } from "./pay-view.js";

/** What the page says once the payment is in a block (the wallet's node has its receipt) and verify says confirming: received, not yet final (Paid comes at finality). */
export const RECEIVED_CONFIRMING = "Received, confirming…";
/**
 * Verify is asked about a payment not yet known to be in a block every SENT_POLL_MS, SENT_QUICK_POLLS
 * times (Base makes a block every 200 ms), then, and once it is in one, every FINALITY_POLL_MS.
 */
const SENT_POLL_MS = 250;
const SENT_QUICK_POLLS = 8;
const FINALITY_POLL_MS = 1_000;

/** `#/pay/<intent>` and `#/link/<link>`: resolve, then pay in one transaction when the wallet can sign. */
export async function payFlow(token: string): Promise<void> {
  // This page's polls (the arrival watch, the verdict) end when the buyer moves to another route.
  const left = routeLeft();
  const status = statusLine();
  const r = await resolvePayment(token, status);
  if (!r || left.aborted) return;
  const intent = r.intent ?? token;
  let walletPath = false;
  const pay = button("pay", "Connect wallet and pay", async () => {
    walletPath = true;
    try {
      const wallet = await connectWallet(r.chain_id);
      status.set("wait", "Confirm the payment in your wallet…");
      let hash: Hex;
      let included = false;
      try {
        hash = await sendPayment(wallet, r);
        rememberTransaction(token, hash);
        status.set("wait", "Payment sent. Confirming…", transactionLink(hash));
        await wallet.waitForReceipt(hash);
        included = true;
      } catch (error) {
        // Before saying it failed: someone else may have submitted the buyer's signed authorization
        // first (then this transaction reverts or cannot be sent, and the payment is made).
        const theirs = (error as { code?: number }).code === 4001 ? null : await recoveredPayment(intent);
        if (!theirs) throw error;
        hash = theirs;
        rememberTransaction(token, hash);
      }
      pay.remove();
      await followVerdict(intent, hash, included, status.set, (settled) => showPaid(status, settled, r.return_url, r.reference), left);
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  payPage(r, pay, status);
  // Any other way the payment arrives (a transfer to its address from an exchange or a wallet app,
  // which the service settles): the page follows it to Paid.
  void watchArrival(
    intent,
    () => walletPath || left.aborted,
    (state, hash) => {
      pay.remove();
      rememberTransaction(token, hash);
      if (state === "paid") showPaid(status, hash, r.return_url, r.reference);
      else status.set("wait", "Payment received. Confirming…", transactionLink(hash));
    },
    left,
  );
}

/**
 * One transaction when possible (an EIP-3009 signature, sent as bytes for a smart wallet), else
 * approve + pay.
 */
async function sendPayment(wallet: Wallet, r: Resolved): Promise<Hex> {
  const amount = BigInt(r.amount_units);
  const oneTransaction = await authorizationPayment(wallet, r, amount);
  if (oneTransaction) return wallet.sendTransaction({ to: r.splitter, data: oneTransaction });
  const approval = await wallet.sendTransaction({
    to: r.token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [r.splitter, amount] }),
  });
  await wallet.waitForReceipt(approval);
  return wallet.sendTransaction({
    to: r.splitter,
    data: encodeFunctionData({ abi: splitterAbi, functionName: "pay", args: [r.token, r.recipient, amount, r.reference] }),
  });
}

/**
 * The one-transaction call, or null when that path cannot work and the checkout pays with approve +
 * pay instead: `payWithAuthorization` (v, r, s) for an EOA's 65-byte signature,
 * `payWithAuthorizationSignature` (bytes, checked by ERC-1271) for a smart wallet (its address has
 * code) or any signature that is not 65 bytes. Null when the wallet refuses to sign typed data (any
 * error but the user declining, which stops here) or a simulation of the call reverts (a wallet that
 * signed over another domain, a signature the token does not accept).
 */
async function authorizationPayment(wallet: Wallet, r: Resolved, amount: bigint): Promise<Hex | null> {
  const nonce = keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [r.recipient, r.reference]));
  let signature: Hex;
  try {
    signature = await wallet.signTypedData(
      receiveAuthorizationTypedData(r.token_domain, {
        from: wallet.account,
        to: r.splitter,
        value: amount,
        validAfter: 0n,
        validBefore: BigInt(r.expires_at),
        nonce,
      }),
    );
  } catch (error) {
    if ((error as { code?: number }).code === 4001) throw error; // declined: do not fall back behind the user's back
    return null;
  }
  let data: Hex;
  try {
    const payment = {
      token: r.token,
      payer: wallet.account,
      recipient: r.recipient,
      amount,
      reference: r.reference,
      validBefore: BigInt(r.expires_at),
      signature,
    };
    data = authorizationCall(payment, await wallet.hasCode());
  } catch {
    return null; // not hex: nothing to send
  }
  try {
    await wallet.call(r.splitter, data);
  } catch {
    return null;
  }
  return data;
}

/**
 * The intent's own payment, whoever sent it, when recover finds it made or on its way (valid, or
 * PAYMENT_CONFIRMING); null otherwise. Asked before the buyer is told a payment failed.
 */
async function recoveredPayment(intent: string): Promise<Hex | null> {
  const answer = await answerOf(api.recoverPayment({ intent }));
  if (!answer.ok) return null;
  const b = answer.body;
  return b.found && b.tx_hash && (b.valid || b.code === "PAYMENT_CONFIRMING") ? b.tx_hash : null;
}

/** Polls verify for the same hash until it settles (the merchant verifies again on its side), or the page moves to another route. */
async function followVerdict(intent: string, hash: Hex, included: boolean, set: Status["set"], paid: (hash: Hex) => void, left: AbortSignal): Promise<void> {
  let asked = 0;
  while (!left.aborted) {
    const answer = await answerOf(api.verifyPayment({ intent, tx_hash: hash }, { signal: left }));
    if (answer.ok && answer.body.valid) {
      paid(hash);
      return;
    }
    if (answer.ok && !answer.body.valid && answer.body.code !== "PAYMENT_CONFIRMING" && answer.body.code !== "PAYMENT_NOT_FOUND") {
      const theirs = await recoveredPayment(intent);
      if (theirs && theirs !== hash) {
        hash = theirs; // this transaction failed, but the payment was made by another one
        continue;
      }
      set("error", `The payment did not go through (${answer.body.code}).`);
      return;
    }
    // In a block (the wallet's node served its receipt): received, though not final yet.
    const received = included && answer.ok && !answer.body.valid && answer.body.code === "PAYMENT_CONFIRMING";
    set("wait", received ? RECEIVED_CONFIRMING : "Payment sent. Confirming…", transactionLink(hash));
    const retryAfter = answer.ok ? undefined : answer.body.retry_after;
    const quick = !received && ++asked <= SENT_QUICK_POLLS;
    await new Promise((resolve) => setTimeout(resolve, retryAfter !== undefined ? retryAfter * 1000 : quick ? SENT_POLL_MS : FINALITY_POLL_MS));
  }
}
