import type { Address, Hex } from "viem";
import type { ResponseOf } from "../../../client/src/index.js";
import { answerOf, api } from "../api.js";
import { connectWallet, walletError } from "../connect.js";
import { displayAmount, displayTime } from "../format.js";
import { folded, networkBanner, routeLeft, setTitle, walletNotice } from "../page.js";
import { button, details, el, render, statusLine } from "../ui.js";
import { explain } from "../words.js";
import { loadOrExplain, transactionButton } from "./common.js";

type HoldState = ResponseOf<"holdState">;

/** How often the page reads the hold again while a step is on its way. */
const POLL_MS = 1_000;

/** What each state tells the buyer. */
const STATE_WORDS: Record<HoldState["state"], string> = {
  AWAITING_AUTHORIZATION: "Not authorized yet.",
  AUTHORIZATION_EXPIRED: "This hold can no longer be authorized.",
  AUTHORIZED: "Authorized: the amount is set aside in escrow; the merchant captures what is owed.",
  EXPIRED: "The merchant's time to capture has passed: take back what is left with your wallet.",
  CAPTURED: "Captured in full.",
  VOIDED: "Closed: what was not captured went back to your wallet.",
  RECLAIMED: "Closed: you took back what was left.",
};

/**
 * `#/hold/<checkout_token>` (the buyer's `hc` capability): the hold's terms and state as the chain
 * holds them; the buyer authorizes it by signing exactly the typed data POST /v1/holds/resolve serves
 * (USDC's ReceiveWithAuthorization to the escrow's collector), which the service sends as the
 * escrow's operator; once the capture deadline has passed with funds left, the buyer reclaims them
 * with its own transaction, prepared by POST /v1/holds/state. The page never captures or voids.
 */
export async function holdFlow(token: string, symbol: string): Promise<void> {
  const status = statusLine();
  const first = await loadOrExplain("Hold", api.holdState({ hold: token }), status);
  if (!first) return;
  const signal = routeLeft();
  const stateLine = el("p", { id: "hold-state" });
  const steps = el("ol", { id: "hold-steps", class: "payments" });
  const actions = el("div", { class: "actions" });
  const format = (units: bigint | string) => displayAmount(units, symbol);
  const draw = (s: HoldState) => {
    stateLine.dataset.state = s.state;
    stateLine.textContent = STATE_WORDS[s.state];
    steps.replaceChildren(
      ...s.steps.map((step) =>
        el(
          "li",
          { class: "card", "data-step": step.step, "data-final": String(step.final) },
          `${step.step} ${format(step.amount_units)}${step.final ? "" : " (confirming)"}`,
        ),
      ),
    );
    actions.replaceChildren(...(s.state === "AWAITING_AUTHORIZATION" && !s.in_flight ? [authorize] : []), ...(s.reclaim ? [reclaimButton(s.reclaim)] : []));
  };
  /** Reads the hold again until `done` holds for it (or the page is left). */
  const follow = async (done: (s: HoldState) => boolean) => {
    while (!signal.aborted) {
      const answer = await answerOf(api.holdState({ hold: token }));
      if (answer.ok) {
        draw(answer.body);
        if (done(answer.body)) return answer.body;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return null;
  };
  const authorize = button("authorize", "Connect wallet and authorize", async () => {
    try {
      const wallet = await connectWallet(first.chain_id);
      const resolved = await answerOf(api.resolveHold({ hold: token, payer: wallet.account }));
      if (!resolved.ok) return status.set("error", explain(resolved.body.error, resolved.body.action, resolved.body.retry_after));
      status.set("wait", `Sign the authorization of ${format(resolved.body.amount_units)} in your wallet…`);
      // Exactly what the service served (its types carry EIP712Domain): the wallet signs it as it is.
      const signature = await wallet.signTypedData(resolved.body.typed_data);
      const sent = await answerOf(api.authorizeHold({ hold: token, payer: wallet.account, signature }));
      if (!sent.ok) return status.set("error", explain(sent.body.error, sent.body.action, sent.body.retry_after));
      authorize.remove();
      status.set("wait", "Authorization sent: waiting for it to be final…");
      const held = await follow((s) => s.state !== "AWAITING_AUTHORIZATION" && s.steps.every((step) => step.final));
      if (held) status.set("ok", STATE_WORDS[held.state]);
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  const reclaimButton = (reclaim: NonNullable<HoldState["reclaim"]>) =>
    transactionButton({
      id: "reclaim",
      label: "Connect wallet and reclaim",
      chainId: first.chain_id,
      status,
      expected: { account: reclaim.from as Address, role: "buyer's" },
      pending: "Confirm the reclaim in your wallet…",
      send: (wallet) => wallet.sendTransaction({ to: reclaim.to as Address, data: reclaim.data as Hex }),
      done: () => {
        void follow((s) => s.state === "RECLAIMED");
        return "Reclaimed: the funds are back in your wallet.";
      },
    });
  setTitle(`Hold ${format(first.amount_units)}`);
  render(
    networkBanner(first.chain_id),
    el("h1", {}, "Hold"),
    el(
      "div",
      { class: "card" },
      el("div", { class: "amount", id: "amount" }, format(first.amount_units)),
      details([
        ["To", first.recipient],
        ["Authorize before", displayTime(first.authorize_before)],
        ["Capture before", displayTime(first.capture_before)],
      ]),
      stateLine,
      steps,
      actions,
      status.node,
      folded("Details", [
        ["Escrow", first.escrow],
        ["Operator", first.operator],
        ["Fee on each capture", `${first.fee_bps / 100}%`],
        ["Hold", first.hold_id],
      ]),
      walletNotice(first.chain_id, authorize),
    ),
  );
  draw(first);
}
