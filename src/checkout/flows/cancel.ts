import { isAddressEqual, type Address, type Hex } from "viem";
import { post } from "../api.js";
import { connectWallet, walletError } from "../connect.js";
import { button, details, el, explain, render, statusLine } from "../ui.js";

/** `#/cancel/<cancel_token>`: the payer sends the revoke calldata the API prepared for the token. */
export async function cancelFlow(cancelToken: string): Promise<void> {
  const answer = await post<{ chain_id: number; payer: Address; to: Address; data: Hex; subscription_id: string; description: string }>("/v1/subscriptions/revoke/prepare", { subscription: cancelToken });
  const status = statusLine();
  if (!answer.ok) {
    status.set("error", explain(answer.body.error, answer.body.action, answer.body.retry_after));
    render(el("h1", {}, "Cancel subscription"), status.node);
    return;
  }
  const p = answer.body;
  const go = button("cancel", "Connect wallet and cancel", async () => {
    try {
      const wallet = await connectWallet(p.chain_id);
      if (!isAddressEqual(wallet.account, p.payer)) {
        status.set("error", `Connect the paying wallet ${p.payer}.`);
        return;
      }
      status.set("wait", "Confirm the cancellation in your wallet…");
      const hash = await wallet.sendTransaction({ to: p.to, data: p.data });
      await wallet.waitForReceipt(hash);
      go.remove();
      status.set("ok", `Subscription cancelled (${hash}). No further charge can happen.`);
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  render(el("h1", {}, "Cancel subscription"), el("div", { class: "card" }, el("p", {}, p.description), details([["Subscription", p.subscription_id], ["Payer", p.payer]]), go, status.node));
}
