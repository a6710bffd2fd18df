import { encodeFunctionData, erc20Abi, isAddressEqual, type Address } from "viem";
import { post } from "../api.js";
import { connectWallet, walletError } from "../connect.js";
import { button, details, el, explain, render, statusLine } from "../ui.js";

/** `#/refund/<refund_token>`: the merchant's wallet transfers to the payer the refund token names (and only it). */
export async function refundFlow(refundToken: string, symbol: string): Promise<void> {
  const answer = await post<{ chain_id: number; token: Address; merchant: Address; payer: Address; amount: string; amount_units: string; expires_at: number }>("/v1/refunds/resolve", { refund_token: refundToken });
  const status = statusLine();
  if (!answer.ok) {
    status.set("error", explain(answer.body.error, answer.body.action, answer.body.retry_after));
    render(el("h1", {}, "Refund"), status.node);
    return;
  }
  const r = answer.body;
  const go = button("refund", "Connect merchant wallet and refund", async () => {
    try {
      const wallet = await connectWallet(r.chain_id);
      if (!isAddressEqual(wallet.account, r.merchant)) {
        status.set("error", `Connect the merchant wallet ${r.merchant}.`);
        return;
      }
      status.set("wait", "Confirm the refund in your wallet…");
      const hash = await wallet.sendTransaction({ to: r.token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [r.payer, BigInt(r.amount_units)] }) });
      await wallet.waitForReceipt(hash);
      go.remove();
      status.set("ok", `Refund sent (${hash}).`);
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  render(el("h1", {}, "Refund"), el("div", { class: "card" }, el("div", { class: "amount", id: "amount" }, `${r.amount} ${symbol}`), details([["To (the payer)", r.payer], ["From (merchant)", r.merchant], ["Valid until", new Date(r.expires_at * 1000).toLocaleString()]]), go, status.node));
}
