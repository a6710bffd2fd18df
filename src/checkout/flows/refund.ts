import { encodeFunctionData, erc20Abi, type Address } from "viem";
import { details, el, render, statusLine } from "../ui.js";
import { loadOrExplain, transactionButton } from "./common.js";

/** `#/refund/<refund_token>`: the merchant's wallet transfers to the payer the refund token names (and only it). */
export async function refundFlow(refundToken: string, symbol: string): Promise<void> {
  const status = statusLine();
  const r = await loadOrExplain<{ chain_id: number; token: Address; merchant: Address; payer: Address; amount: string; amount_units: string; expires_at: number }>(
    "Refund",
    "/v1/refunds/resolve",
    { refund_token: refundToken },
    status,
  );
  if (!r) return;
  const go = transactionButton({
    id: "refund",
    label: "Connect merchant wallet and refund",
    chainId: r.chain_id,
    status,
    expected: { account: r.merchant, role: "merchant" },
    pending: "Confirm the refund in your wallet…",
    send: (wallet) => wallet.sendTransaction({ to: r.token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [r.payer, BigInt(r.amount_units)] }) }),
    done: (hash) => `Refund sent (${hash}).`,
  });
  render(el("h1", {}, "Refund"), el("div", { class: "card" }, el("div", { class: "amount", id: "amount" }, `${r.amount} ${symbol}`), details([["To (the payer)", r.payer], ["From (merchant)", r.merchant], ["Valid until", new Date(r.expires_at * 1000).toLocaleString()]]), go, status.node));
}
