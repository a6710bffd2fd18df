import { encodeFunctionData, erc20Abi } from "viem";
import { allowanceTotal, allowanceWords, readAllowance, UNLIMITED_WORDS } from "../allowance.js";
import { displayAmount, subscriptionWords } from "../format.js";
import { folded, networkBanner, setTitle, validity, walletNotice } from "../page.js";
import { details, el, render, statusLine } from "../ui.js";
import { api } from "../api.js";
import { loadOrExplain, transactionButton } from "./common.js";

/**
 * `#/approve/<approve_token>`: names the subscription, then restores its allowance, with numbers only
 * from the API.
 * The payer's allowance to the contract serves all their subscriptions, so the page adds
 * required_units to the current allowance (never replaces it), and sends nothing when it is unlimited.
 */
export async function approveFlow(approveToken: string, symbol: string): Promise<void> {
  const status = statusLine();
  const a = await loadOrExplain("Restore allowance", api.approveResolve({ approve_token: approveToken }), status);
  if (!a) return;
  const go = transactionButton({
    id: "approve",
    label: "Connect wallet and allow",
    chainId: a.chain_id,
    status,
    expected: { account: a.payer, role: "paying" },
    pending: "Confirm the allowance in your wallet…",
    send: async (wallet) => {
      const adding = BigInt(a.required_units);
      const current = await readAllowance(wallet, a.token, a.payer, a.spender);
      const total = allowanceTotal(current, adding);
      if (total === null) return null;
      status.set("wait", `${allowanceWords(current, adding, total, (units) => displayAmount(units, symbol))} Confirm in your wallet…`);
      return wallet.sendTransaction({
        to: a.token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [a.spender, total] }),
      });
    },
    done: (hash) => (hash ? "Allowance restored. The subscription can be charged again." : `${UNLIMITED_WORDS} The subscription can be charged.`),
  });
  setTitle("Restore allowance");
  render(
    networkBanner(a.chain_id),
    el("h1", {}, "Restore allowance"),
    el(
      "div",
      { class: "card" },
      el("p", { class: "subscription-words", id: "subscription" }, subscriptionWords(a.terms, symbol, Date.now() / 1000)),
      el("p", {}, "Allow the subscription contract to take its next charge, at most:"),
      el("div", { class: "amount", id: "amount" }, displayAmount(a.required_units, symbol)),
      el(
        "p",
        { id: "allowance-rule" },
        "This is added to the allowance your other subscriptions already use; your wallet shows the total. The contract still takes at most one charge per period, and you can revoke the allowance at any time.",
      ),
      details([
        ["To", a.terms.recipient],
        ["Payer", a.payer],
      ]),
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
