import { approveFlow } from "./flows/approve.js";
import { cancelFlow } from "./flows/cancel.js";
import { payFlow } from "./flows/pay.js";
import { refundFlow } from "./flows/refund.js";
import { subscribeFlow } from "./flows/subscribe.js";
import { merchantFlow } from "./flows/merchant.js";
import { holdFlow } from "./flows/hold.js";
import { leaveRoute, networkBanner, pageContext, setContext } from "./page.js";
import { el, render } from "./ui.js";

/**
 * The hosted checkout. Capabilities come only from the URL fragment (never sent to any server in a
 * URL or Referer); the page calls the API like any other client and builds transactions only from
 * what the API returns for the token.
 */
async function route(): Promise<void> {
  leaveRoute();
  document.getElementById("wallet-chooser")?.remove();
  document.getElementById("app")?.classList.remove("wide");
  const [, kind, token] = /^#\/([a-z]+)\/(.+)$/.exec(location.hash) ?? [];
  let symbol = "USDC";
  try {
    const caps = (await (await fetch(new URL("../v1/capabilities", location.href.split("#")[0]))).json()) as {
      token?: { symbol?: string };
      chain_id?: number;
      local_chain?: boolean;
      chain_rpc_url?: string;
    };
    symbol = caps.token?.symbol ?? symbol;
    const localChain = caps.local_chain === true;
    setContext({ symbol, chainId: caps.chain_id ?? null, localChain, localRpcUrl: localChain ? (caps.chain_rpc_url ?? null) : null });
  } catch {
    // cosmetic: the symbol, the network's name and the explorer link
  }
  const merchant = /^#\/merchant(?:\/(.*))?$/.exec(location.hash);
  if (merchant) return merchantFlow(merchant[1] ?? "", symbol);
  switch (kind) {
    case "link":
      // A link for a subscription goes to the subscribe page. The payload is read only to pick the
      // page: the API verifies the token, and a payment link's token never resolves as a subscription.
      return isSubscriptionLink(token!) ? subscribeFlow(token!, symbol) : payFlow(token!);
    case "pay":
      return payFlow(token!);
    case "subscribe":
      return subscribeFlow(token!, symbol);
    case "approve":
      return approveFlow(token!, symbol);
    case "cancel":
      return cancelFlow(token!, symbol);
    case "refund":
      return refundFlow(token!, symbol);
    case "hold":
      return holdFlow(token!, symbol);
    default: {
      document.title = "Checkout";
      const { chainId } = pageContext();
      render(
        ...(chainId !== null ? [networkBanner(chainId)] : []),
        el("h1", {}, "Checkout"),
        el("p", { class: "muted" }, "Open this page from a payment, subscription, approval, cancellation, refund or hold link."),
        el("p", {}, el("a", { href: "#/merchant", id: "merchant-link" }, "Merchants: the payments to your wallet")),
      );
    }
  }
}

/** Whether a link token's payload (its third segment, base64url JSON) carries a billing period. */
function isSubscriptionLink(token: string): boolean {
  try {
    const payload = token.split(".")[2] ?? "";
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    return typeof (JSON.parse(json) as { period?: unknown }).period === "number";
  } catch {
    return false;
  }
}

window.addEventListener("hashchange", () => void route());
void route();
