import { answerOf, api } from "../api.js";
import { displayAmount, displayTime, shortHex } from "../format.js";
import { button, el, statusLine } from "../ui.js";
import { explain } from "../words.js";

/**
 * A recipient's holds on the merchant page, read from the escrow's events through POST /v1/holds/list
 * (no account, nothing stored: the authorizations naming this service as operator and the wallet as
 * receiver), each with its state and what was captured; capture and void stay on the merchant's
 * server, which holds the `ho` capability.
 */
/** The most list pages one load follows (each a few log ranges): older holds wait for the merchant's own server to page. */
const MAX_PAGES = 40;

export function holdsSection(recipient: string, symbol: string): HTMLElement {
  const status = statusLine();
  status.node.id = "holds-status";
  const list = el("ol", { id: "holds", class: "payments" });
  const load = async () => {
    status.set("wait", "Reading the holds…");
    // The list comes in pages of a few log ranges each: follow them back over the 31 days, a bounded number at a time.
    const holds = [];
    let before: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await answerOf(api.listHolds({ recipient: recipient as `0x${string}`, ...(before ? { before_block: before } : {}) }));
      if (!answer.ok) return status.set("error", explain(answer.body.error, answer.body.action, answer.body.retry_after));
      holds.push(...answer.body.holds);
      if (answer.body.next_before_block === null) break;
      before = answer.body.next_before_block;
    }
    status.clear();
    list.replaceChildren(
      ...(holds.length === 0
        ? [el("li", { id: "no-holds", class: "muted" }, "No holds authorized in the last 31 days.")]
        : holds.map((h) =>
            el(
              "li",
              { class: "card", "data-hold": h.hold_id, "data-state": h.state },
              el(
                "div",
                { class: "payment-head" },
                el("code", { title: h.payer }, shortHex(h.payer)),
                el("span", { class: `state state-${h.state.toLowerCase()}` }, h.state),
              ),
              el(
                "p",
                { class: "muted" },
                `${displayAmount(h.amount_units, symbol)} held · ${displayAmount(h.captured_units, symbol)} captured · ${displayAmount(h.capturable_units, symbol)} left · capture before ${displayTime(h.capture_before)}`,
              ),
            ),
          )),
    );
  };
  const refresh = button("refresh-holds", "Refresh holds", load);
  void load();
  return el("section", { id: "holds-section" }, el("h2", {}, "Holds"), list, el("div", { class: "actions" }, refresh), status.node);
}
