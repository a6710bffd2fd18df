import { encodeFunctionData, erc20Abi } from "viem";
import { displayAmount } from "../format.js";
import { folded, networkBanner, setTitle, validity, walletNotice } from "../page.js";
import { details, el, render, statusLine } from "../ui.js";
import { api } from "../api.js";
import { loadOrExplain, transactionButton } from "./common.js";

/** `#/refund/<refund_token>`: the merchant's wallet transfers to the payer the refund token names (and only it). */
export async function refundFlow(refundToken: string, symbol: string): Promise<void> {
  const status = statusLine();
  const r = await loadOrExplain("Refund", api.resolveRefund({ refund_token: refundToken }), status);
  if (!r) return;
  const go = transactionButton({
    id: "refund",
    label: "Connect merchant wallet and refund",
    chainId: r.chain_id,
    status,
    expected: { account: r.merchant, role: "merchant" },
    pending: "Confirm the refund in your wallet…",
    send: (wallet) =>
      wallet.sendTransaction({ to: r.token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [r.payer, BigInt(r.amount_units)] }) }),
    done: () => "Refund sent.",
  });
  setTitle(`Refund ${displayAmount(r.amount_units, symbol)}`);
  render(
    networkBanner(r.chain_id),
    el("h1", {}, "Refund"),
    el(
      "div",
      { class: "card" },
      el("div", { class: "amount", id: "amount" }, displayAmount(r.amount_units, symbol)),
      details([
        ["To (the payer)", r.payer],
        ["From (merchant)", r.merchant],
      ]),
      r.payer_from_deposit
        ? el(
            "p",
            { class: "notice", id: "deposit-payer" },
            "This payment was a plain transfer to its payment address: the payer above is the address that sent it. If that was an exchange withdrawal, the refund goes to the exchange, which may not credit the buyer. Confirm with the buyer before refunding.",
          )
        : null,
      validity("Valid until", r.expires_at, () => {
        if (!status.node.dataset.state) go.remove();
      }),
      folded("Details", [["Token", r.token]]),
      go,
      status.node,
      walletNotice(r.chain_id, go),
    ),
  );
}
