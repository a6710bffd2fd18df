import { encodeFunctionData, erc20Abi, type Address } from "viem";
import { formatAmount } from "../../money.js";
import { details, el, render, statusLine } from "../ui.js";
import { loadOrExplain, transactionButton } from "./common.js";

/** `#/approve/<approve_token>`: restores one subscription's allowance, with numbers only from the API. */
export async function approveFlow(approveToken: string, symbol: string): Promise<void> {
  const status = statusLine();
  const a = await loadOrExplain<{ chain_id: number; token: Address; spender: Address; payer: Address; subscription_id: string; required_units: string; expires_at: number }>(
    "Restore allowance",
    "/v1/subscriptions/approve/resolve",
    { approve_token: approveToken },
    status,
  );
  if (!a) return;
  const go = transactionButton({
    id: "approve",
    label: "Connect wallet and allow",
    chainId: a.chain_id,
    status,
    expected: { account: a.payer, role: "paying" },
    pending: "Confirm the allowance in your wallet…",
    send: (wallet) => wallet.sendTransaction({ to: a.token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [a.spender, BigInt(a.required_units)] }) }),
    done: (hash) => `Allowance restored (${hash}).`,
  });
  render(
    el("h1", {}, "Restore allowance"),
    el("div", { class: "card" }, el("div", { class: "amount", id: "amount" }, `${formatAmount(BigInt(a.required_units))} ${symbol}`), details([["Subscription", a.subscription_id], ["Payer", a.payer], ["Contract", a.spender]]), go, status.node),
  );
}
