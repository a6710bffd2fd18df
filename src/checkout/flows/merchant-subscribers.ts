import { answerOf, api } from "../api.js";
import { displayAmount, displayTime, periodWords, shortHex } from "../format.js";
import { button, el, statusLine } from "../ui.js";
import { explain } from "../words.js";

/** Where a pasted manage token is kept for this tab (never a cookie, never a URL sent anywhere). */
export const MANAGE_TOKEN_KEY = "merchant-manage-token";

/**
 * The subscribers of a subscription link, from its manage token: pasted here, kept in the page's
 * fragment (`#/merchant/<address>/<manage_token>`, which no request carries) and in sessionStorage
 * (this tab only), and sent only in the body of POST /v1/links/subscribers, whose answer holds no
 * capability. Each subscriber with its state and last charge.
 */
export function subscribersSection(recipient: string, symbol: string, fromFragment: string | undefined): HTMLElement {
  const stored = fromFragment ?? sessionStorage.getItem(MANAGE_TOKEN_KEY) ?? undefined;
  const status = statusLine();
  status.node.id = "subscribers-status";
  const list = el("ol", { id: "subscribers", class: "subscribers" });
  const input = el("input", { id: "manage-token", type: "password", autocomplete: "off", spellcheck: "false", placeholder: "lm.…" });
  const show = async (token: string) => {
    status.set("wait", "Reading the subscribers…");
    const answer = await answerOf(api.linkSubscriberStates({ manage_token: token }));
    if (!answer.ok) return status.set("error", explain(answer.body.error, answer.body.action, answer.body.retry_after));
    status.clear();
    const { subscribers } = answer.body;
    list.replaceChildren(
      ...(subscribers.length === 0
        ? [el("li", { id: "no-subscribers", class: "muted" }, "No subscribers yet.")]
        : subscribers.map((s) =>
            el(
              "li",
              { class: "subscriber card", "data-subscription": s.subscription_id },
              el(
                "div",
                { class: "payment-head" },
                el("code", { title: s.payer }, shortHex(s.payer)),
                el("span", { class: `state state-${s.state.toLowerCase()}` }, s.state),
              ),
              el(
                "p",
                { class: "muted" },
                `${displayAmount(s.amount_units, symbol)} ${periodWords(s.period)} · ${s.paid_count} charge${s.paid_count === 1 ? "" : "s"}`,
                s.last_period_start !== null ? ` · last charge for the period from ${displayTime(s.last_period_start)}` : " · not charged yet",
              ),
            ),
          )),
    );
  };
  const go = button("show-subscribers", "Show subscribers", async () => {
    const token = input.value.trim();
    if (!token) return status.set("error", "Paste the link's manage token.");
    sessionStorage.setItem(MANAGE_TOKEN_KEY, token);
    // The fragment only: history keeps it in this browser, no request or Referer carries it.
    history.replaceState(null, "", `#/merchant/${recipient}/${token}`);
    await show(token);
  });
  const forget = el("button", { type: "button", id: "forget-token", class: "secondary" }, "Forget token");
  forget.addEventListener("click", () => {
    sessionStorage.removeItem(MANAGE_TOKEN_KEY);
    history.replaceState(null, "", `#/merchant/${recipient}`);
    input.value = "";
    list.replaceChildren();
  });
  if (stored) {
    input.value = stored;
    sessionStorage.setItem(MANAGE_TOKEN_KEY, stored);
    void show(stored);
  }
  return el(
    "details",
    { class: "more subscribers-box", id: "subscribers-box", ...(stored ? { open: "" } : {}) },
    el("summary", {}, "Subscription link subscribers"),
    el("label", { for: "manage-token" }, "The link's manage token (stays in this tab)"),
    input,
    el("div", { class: "actions" }, go, forget),
    status.node,
    list,
  );
}
