import { encodeAbiParameters, encodeFunctionData, erc20Abi, isHex, keccak256, parseSignature, size, type Hex } from "viem";
import { splitterAbi } from "../../generated/contracts.js";
import { receiveAuthorizationTypedData } from "../../chain/token-authorizations.js";
import { post } from "../api.js";
import { connectWallet, walletError } from "../connect.js";
import { button, details, el, render, statusLine } from "../ui.js";
import type { Wallet } from "../wallet.js";
import type { ResolvedPayment } from "../../payments/payments.js";
import { loadOrExplain } from "./common.js";

type Resolved = ResolvedPayment & { intent?: string; link_id?: Hex };

/** `#/pay/<intent>` and `#/link/<link>`: resolve, then pay in one transaction when the wallet can sign. */
export async function payFlow(token: string, symbol: string): Promise<void> {
  const status = statusLine();
  const r = await loadOrExplain<Resolved>("Payment", "/v1/payments/resolve", { intent: token }, status);
  if (!r) return;
  const intent = r.intent ?? token;
  const pay = button("pay", "Connect wallet and pay", async () => {
    try {
      const wallet = await connectWallet(r.chain_id);
      status.set("wait", "Confirm the payment in your wallet…");
      const hash = await sendPayment(wallet, r);
      status.set("wait", `Payment sent (${hash}). Confirming…`);
      await wallet.waitForReceipt(hash);
      pay.remove();
      await followVerdict(intent, hash, status.set);
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  render(
    el("h1", {}, "Pay"),
    el(
      "div",
      { class: "card" },
      el("div", { class: "amount", id: "amount" }, `${r.amount} ${symbol}`),
      details([
        ["To", r.recipient],
        ["Reference", r.reference],
        ["Network", `chain ${r.chain_id}`],
        ["Valid until", new Date(r.expires_at * 1000).toLocaleString()],
      ]),
      pay,
      status.node,
    ),
  );
}

/** One transaction when possible (EIP-3009 signature + payWithAuthorization), else approve + pay. */
async function sendPayment(wallet: Wallet, r: Resolved): Promise<Hex> {
  const amount = BigInt(r.amount_units);
  const oneTransaction = await authorizationPayment(wallet, r, amount);
  if (oneTransaction) return wallet.sendTransaction({ to: r.splitter, data: oneTransaction });
  const approval = await wallet.sendTransaction({ to: r.token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [r.splitter, amount] }) });
  await wallet.waitForReceipt(approval);
  return wallet.sendTransaction({ to: r.splitter, data: encodeFunctionData({ abi: splitterAbi, functionName: "pay", args: [r.token, r.recipient, amount, r.reference] }) });
}

/**
 * The `payWithAuthorization` call for one transaction, or null when that path cannot work and the
 * checkout pays with approve + pay instead: the wallet refuses to sign typed data (any error but the
 * user declining, which stops here), its signature is not a 65-byte ECDSA signature (a smart
 * account's, which EIP-3009's v, r, s cannot carry), or a simulation of the call reverts (a wallet
 * that signed over another domain, a token that refuses the authorization).
 */
async function authorizationPayment(wallet: Wallet, r: Resolved, amount: bigint): Promise<Hex | null> {
  const nonce = keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [r.recipient, r.reference]));
  let signature: Hex;
  try {
    signature = await wallet.signTypedData(
      receiveAuthorizationTypedData(r.token_domain, { from: wallet.account, to: r.splitter, value: amount, validAfter: 0n, validBefore: BigInt(r.expires_at), nonce }),
    );
  } catch (error) {
    if ((error as { code?: number }).code === 4001) throw error; // declined: do not fall back behind the user's back
    return null;
  }
  if (!isHex(signature) || size(signature) !== 65) return null;
  const { v, r: sr, s } = parseSignature(signature);
  const data = encodeFunctionData({ abi: splitterAbi, functionName: "payWithAuthorization", args: [r.token, wallet.account, r.recipient, amount, r.reference, 0n, BigInt(r.expires_at), Number(v), sr, s] });
  try {
    await wallet.call(r.splitter, data);
  } catch {
    return null;
  }
  return data;
}

/** Polls verify for the same hash until it settles (the merchant verifies again on its side). */
async function followVerdict(intent: string, hash: Hex, set: (kind: "ok" | "wait" | "error", text: string) => void): Promise<void> {
  for (;;) {
    const answer = await post<{ valid: boolean; code?: string }>("/v1/payments/verify", { intent, tx_hash: hash });
    if (answer.ok && answer.body.valid) {
      set("ok", `Paid. Transaction ${hash}.`);
      return;
    }
    if (answer.ok && answer.body.code !== "PAYMENT_CONFIRMING" && answer.body.code !== "PAYMENT_NOT_FOUND") {
      set("error", `The payment did not go through (${answer.body.code}).`);
      return;
    }
    set("wait", `Payment sent (${hash}). Confirming…`);
    await new Promise((resolve) => setTimeout(resolve, (answer.body.retry_after ?? 1) * 1000));
  }
}
