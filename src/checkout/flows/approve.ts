import { encodeFunctionData, erc20Abi, isAddressEqual, type Address } from "viem";
import { post } from "../api.js";
import { connectWallet, walletError } from "../connect.js";
import { formatAmount } from "../../money.js";
import { button, details, el, explain, render, statusLine } from "../ui.js";

/** `#/approve/<approve_token>`: restores one subscription's allowance, with numbers only from the API. */
export async function approveFlow(approveToken: string, symbol: string): Promise<void> {
  const answer = await post<{ chain_id: number; token: Address; spender: Address; payer: Address; subscription_id: string; required_units: string; expires_at: number }>(
    "/v1/subscriptions/approve/resolve",
    { approve_token: approveToken },
  );
  const status = statusLine();
  if (!answer.ok) {
    status.set("error", explain(answer.body.error, answer.body.action, answer.body.retry_after));
    render(el("h1", {}, "Restore allowance"), status.node);
    return;
  }
  const a = answer.body;
  const go = button("approve", "Connect wallet and allow", async () => {
    try {
      const wallet = await connectWallet(a.chain_id);
      if (!isAddressEqual(wallet.account, a.payer)) {
        status.set("error", `Connect the paying wallet ${a.payer}.`);
        return;
      }
      status.set("wait", "Confirm the allowance in your wallet…");
      const hash = await wallet.sendTransaction({ to: a.token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [a.spender, BigInt(a.required_units)] }) });
      await wallet.waitForReceipt(hash);
      go.remove();
      status.set("ok", `Allowance restored (${hash}).`);
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  render(
    el("h1", {}, "Restore allowance"),
    el("div", { class: "card" }, el("div", { class: "amount", id: "amount" }, `${formatAmount(BigInt(a.required_units))} ${symbol}`), details([["Subscription", a.subscription_id], ["Payer", a.payer], ["Contract", a.spender]]), go, status.node),
  );
}
