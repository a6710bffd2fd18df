import { encodeFunctionData, erc20Abi, type Address } from "viem";
import { displayAmount } from "../format.js";
import { folded, networkBanner, setTitle, validity, walletNotice } from "../page.js";
import { details, el, render, statusLine } from "../ui.js";
import { loadOrExplain, transactionButton } from "./common.js";

/** `#/approve/<approve_token>`: restores one subscription's allowance, with numbers only from the API. */
export async function approveFlow(approveToken: string, symbol: string): Promise<void> {
  const status = statusLine();
  const a = await loadOrExplain<{
    chain_id: number;
    token: Address;
    spender: Address;
    payer: Address;
    subscription_id: string;
    required_units: string;
    expires_at: number;
  }>("Restore allowance", "/v1/subscriptions/approve/resolve", { approve_token: approveToken }, status);
  if (!a) return;
  const go = transactionButton({
    id: "approve",
    label: "Connect wallet and allow",
    chainId: a.chain_id,
    status,
    expected: { account: a.payer, role: "paying" },
    pending: "Confirm the allowance in your wallet…",
    send: (wallet) =>
      wallet.sendTransaction({
        to: a.token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [a.spender, BigInt(a.required_units)] }),
      }),
    done: () => "Allowance restored. The subscription can be charged again.",
  });
  setTitle("Restore allowance");
  render(
    networkBanner(a.chain_id),
    el("h1", {}, "Restore allowance"),
    el(
      "div",
      { class: "card" },
      el("p", {}, "Allow the subscription contract to take the next charge:"),
      el("div", { class: "amount", id: "amount" }, displayAmount(a.required_units, symbol)),
      details([["Payer", a.payer]]),
      validity("Link valid until", a.expires_at),
      folded("Details", [
        ["Subscription", a.subscription_id],
        ["Contract", a.spender],
        ["Token", a.token],
      ]),
      go,
      status.node,
      walletNotice(a.chain_id, go),
    ),
  );
}
