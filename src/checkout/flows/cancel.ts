import { subscriptionWords } from "../format.js";
import { folded, networkBanner, setTitle, walletNotice } from "../page.js";
import { details, el, render, statusLine } from "../ui.js";
import { api } from "../api.js";
import { loadOrExplain, transactionButton } from "./common.js";

/**
 * `#/cancel/<cancel_token>`: names the subscription ("9.99 USDC every 30 days to 0x90F7…b906, next
 * charge on 24 Dec"), then the payer sends the revoke calldata the API prepared for the token.
 */
export async function cancelFlow(cancelToken: string, symbol: string): Promise<void> {
  const status = statusLine();
  const p = await loadOrExplain("Cancel subscription", api.revokePrepare({ subscription: cancelToken }), status);
  if (!p) return;
  const go = transactionButton({
    id: "cancel",
    label: "Connect wallet and cancel",
    chainId: p.chain_id,
    status,
    expected: { account: p.payer, role: "paying" },
    pending: "Confirm the cancellation in your wallet…",
    send: (wallet) => wallet.sendTransaction({ to: p.to, data: p.data }),
    done: () => "Subscription cancelled. No further charge can happen.",
  });
  setTitle("Cancel subscription");
  render(
    networkBanner(p.chain_id),
    el("h1", {}, "Cancel subscription"),
    el(
      "div",
      { class: "card" },
      el("p", { class: "subscription-words", id: "subscription" }, subscriptionWords(p.terms, symbol, Date.now() / 1000)),
      el("p", {}, "Cancel it: once the cancellation is on chain, no further charge can be taken. Charges already taken stay with the merchant."),
      details([
        ["To", p.terms.recipient],
        ["Payer", p.payer],
      ]),
      folded("Details", [
        ["What is sent", p.description],
        ["Subscription", p.subscription_id],
        ["Contract", p.to],
      ]),
      go,
      status.node,
      walletNotice(p.chain_id, go),
    ),
  );
}
