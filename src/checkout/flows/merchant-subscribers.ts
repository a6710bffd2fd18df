import { answerOf, api } from "../api.js";
import { displayAmount, displayTime, periodWords, shortHex } from "../format.js";
import { button, el, statusLine } from "../ui.js";
import { explain } from "../words.js";

/** Where a pasted view token is kept for this tab (never a cookie, never a URL). */
export const VIEW_TOKEN_KEY = "merchant-view-token";

/** The kind marker of a link's read-only view token (DESIGN.md "Capability tokens"). */
const VIEW_TOKEN_KIND = "lv.";

/**
 * The subscribers of a subscription link, from its read-only view token (`lv.`), never the manage
 * token, which reads every subscriber's capability: a manage token pasted here is refused before it
 * is sent. A token handed in the fragment (`#/merchant/<address>/<view_token>`) is taken out of the
 * URL and this entry of the history at once; the token is kept in sessionStorage (this tab only) and
 * sent only in the body of POST /v1/links/subscribers, whose answer holds no capability. Each
 * subscriber with its state and last charge.
 */
export function subscribersSection(recipient: string, symbol: string, fromFragment: string | undefined): HTMLElement {
  if (fromFragment !== undefined) history.replaceState(null, "", `#/merchant/${recipient}`);
  const stored = fromFragment ?? sessionStorage.getItem(VIEW_TOKEN_KEY) ?? undefined;
  const status = statusLine();
  status.node.id = "subscribers-status";
  const list = el("ol", { id: "subscribers", class: "subscribers" });
  const input = el("input", { id: "view-token", type: "password", autocomplete: "off", spellcheck: "false", placeholder: "lv.…" });
  const show = async (token: string) => {
    if (!token.startsWith(VIEW_TOKEN_KIND)) {
      sessionStorage.removeItem(VIEW_TOKEN_KEY);
      input.value = "";
      return status.set("error", "That is not a view token: paste the link's view_token (lv.…), never its manage token, which must stay on your server.");
    }
    status.set("wait", "Reading the subscribers…");
    const answer = await answerOf(api.linkSubscriberStates({ view_token: token }));
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
    if (!token) return status.set("error", "Paste the link's view token.");
    // This tab's sessionStorage only: never the URL, so never the history (synced history included).
    if (token.startsWith(VIEW_TOKEN_KIND)) sessionStorage.setItem(VIEW_TOKEN_KEY, token);
    await show(token);
  });
  const forget = el("button", { type: "button", id: "forget-token", class: "secondary" }, "Forget token");
  forget.addEventListener("click", () => {
    sessionStorage.removeItem(VIEW_TOKEN_KEY);
    input.value = "";
    list.replaceChildren();
  });
  if (stored) {
    input.value = stored;
    if (stored.startsWith(VIEW_TOKEN_KIND)) sessionStorage.setItem(VIEW_TOKEN_KEY, stored);
    void show(stored);
  }
  return el(
    "details",
    { class: "more subscribers-box", id: "subscribers-box", ...(stored ? { open: "" } : {}) },
    el("summary", {}, "Subscription link subscribers"),
    el("label", { for: "view-token" }, "The link's view token, lv.… (read-only; stays in this tab)"),
    input,
    el("div", { class: "actions" }, go, forget),
    status.node,
    list,
  );
}
