import type { Hex } from "viem";
import { chainName, countdown, displayTime, networkOf, shortHex } from "./format.js";
import { qrSvg } from "./handoff.js";
import { walletLinks } from "./wallet-links.js";
import { copyButton, details, el, render } from "./ui.js";
import { discoverWallets, LOCAL_CHAIN_NAME } from "./wallet.js";

/**
 * Presentation shared by every route: the deployment's context (from /v1/capabilities), the
 * network banner, titles, folded details, the validity countdown, the after-payment links and the
 * way to continue without a browser wallet. No flow logic lives here.
 */
export interface PageContext {
  symbol: string;
  chainId: number | null;
  localChain: boolean;
  /** The local chain's JSON-RPC URL (/v1/capabilities' chain_rpc_url), which the wallet is asked to add; null elsewhere. */
  localRpcUrl: string | null;
}

let context: PageContext = { symbol: "USDC", chainId: null, localChain: false, localRpcUrl: null };

export function setContext(next: PageContext): void {
  context = next;
}

export function pageContext(): PageContext {
  return context;
}

/** An error page: the network banner (when known), the title, the explanation. */
export function errorPage(title: string, status: HTMLElement): void {
  render(...(context.chainId !== null ? [networkBanner(context.chainId)] : []), el("h1", {}, title), status);
}

/** "Pay 12.50 USDC · Checkout". */
export function setTitle(title: string): void {
  document.title = `${title} · Checkout`;
}

/** The network the page works on: its name, a TEST badge on the test network, "local chain" when so. */
export function networkBanner(chainId: number): HTMLElement {
  const network = networkOf(chainId, context.localChain);
  return el(
    "div",
    { class: "network", id: "network" },
    el("span", { class: "network-name" }, network.name),
    network.test ? el("span", { class: "badge", id: "test-badge", title: "A test network: no real money moves" }, "TEST") : null,
    context.localChain ? el("span", { class: "muted" }, "local chain") : null,
  );
}

/** Rows a buyer rarely needs (reference, contracts, ids), folded away under one summary. */
export function folded(summary: string, rows: Array<[string, string]>): HTMLDetailsElement {
  return el("details", { class: "more" }, el("summary", {}, summary), details(rows));
}

let ticking: ReturnType<typeof setInterval> | undefined;

let route = new AbortController();

/**
 * Leaves the current route (a hash change renders a new page): its countdown stops, and so does
 * every poll that watches {@link routeLeft}.
 */
export function leaveRoute(): void {
  stopTimers();
  route.abort();
  route = new AbortController();
}

/** Aborted once the page moves to another route: the current route's polls stop on it. */
export function routeLeft(): AbortSignal {
  return route.signal;
}

/** Stops the previous countdown (a new one starts, or the time is up). */
export function stopTimers(): void {
  if (ticking !== undefined) clearInterval(ticking);
  ticking = undefined;
}

/** "Valid until 22 Nov 2026, 17:05 UTC · 59:07 left", ticking; `onExpired` once the time is up. */
export function validity(label: string, expiresAt: number, onExpired?: () => void): HTMLElement {
  const left = el("span", { class: "countdown", id: "countdown" });
  const node = el("p", { class: "validity", id: "validity" }, `${label} ${displayTime(expiresAt)} · `, left);
  const tick = () => {
    const seconds = expiresAt - Date.now() / 1000;
    left.textContent = countdown(seconds);
    if (seconds <= 0) {
      stopTimers();
      onExpired?.();
    }
  };
  stopTimers();
  tick();
  ticking = setInterval(tick, 1000);
  return node;
}

/** After a transaction: its explorer page (Basescan, Sepolia Basescan), or a word that the local chain has none. */
export function transactionLink(hash: Hex): HTMLElement {
  const network = networkOf(context.chainId ?? 0, context.localChain);
  const explorer = network.explorer;
  return el(
    "p",
    { class: "tx", id: "tx" },
    "Transaction ",
    el("code", { title: hash }, shortHex(hash)),
    " · ",
    explorer
      ? el("a", { href: explorer.tx(hash), id: "explorer-link", target: "_blank", rel: "noopener noreferrer" }, `View on ${explorer.name}`)
      : el("span", { class: "muted", id: "no-explorer" }, "local chain: no explorer"),
  );
}

/**
 * The merchant's way back, when it gave one: `return_url` with the payment's `tx_hash` and
 * `reference` added as query parameters (the merchant's own kept), so its server can verify the
 * payment it sent the buyer to pay (docs/merchants.md, "Back at return_url").
 */
export function returnLink(returnUrl: string | undefined, paid?: { txHash?: Hex | undefined; reference?: Hex | undefined }): HTMLElement | null {
  if (!returnUrl) return null;
  return el("a", { href: returnHref(returnUrl, paid ?? {}), id: "return-link", class: "button-link", rel: "noreferrer" }, "Back to the merchant");
}

/** `returnUrl` with `tx_hash` and `reference` set among its query parameters (its fragment kept). */
export function returnHref(returnUrl: string, paid: { txHash?: Hex | undefined; reference?: Hex | undefined }): string {
  const url = new URL(returnUrl);
  if (paid.txHash) url.searchParams.set("tx_hash", paid.txHash);
  if (paid.reference) url.searchParams.set("reference", paid.reference);
  return url.href;
}

/**
 * For a browser without a wallet (most phone browsers): open this same page, fragment and all, in a
 * phone wallet's in-app browser, or scan it to continue on a phone. `open` shows it unfolded.
 */
export function handoff(open: boolean): HTMLElement {
  const url = location.href;
  const links = walletLinks(url).map((l) => el("a", { href: l.href, class: "wallet-link", id: `open-in-${l.id}`, rel: "noreferrer" }, `Open in ${l.name}`));
  return el(
    "details",
    { class: "handoff", id: "handoff", ...(open ? { open: "" } : {}) },
    el("summary", {}, open ? "Use a wallet app on your phone" : "Use a wallet app on your phone instead"),
    el("p", { class: "muted" }, "On this phone: open this page in your wallet app's browser."),
    el(
      "div",
      { class: "wallet-links" },
      ...links,
      // This page's link, fragment and all, for a wallet app's browser.
      copyButton(url, { class: "wallet-link", id: "copy-link" }, { label: "Copy link", copied: "Link copied", failed: "Copy failed: copy the address bar" }),
    ),
    el("p", { class: "muted" }, "Another wallet app: copy this page's link and open it in the app's browser."),
    el("p", { class: "muted" }, "On a computer: scan this code with your phone's camera or wallet to continue there."),
    el("div", { class: "qr-box" }, qrSvg(url, "QR code of this page")),
    el("p", { class: "muted", id: "qr-note" }, "The code opens this same page on your phone."),
    localNote(),
  );
}

/** On a service on this machine only (127.0.0.1, localhost), say plainly that a phone cannot open it. */
function localNote(): HTMLElement | null {
  const host = location.hostname;
  if (host === "127.0.0.1" || host === "localhost" || host === "[::1]") {
    return el(
      "p",
      { class: "muted", id: "local-note" },
      `This page is served from ${host}, this computer only: a phone cannot reach it. Use a wallet in this browser, or serve the checkout on an address your phone can reach.`,
    );
  }
  return context.localChain
    ? el("p", { class: "muted", id: "local-note" }, "This service runs on a local chain: a phone can only reach it on the same network.")
    : null;
}

/**
 * What the page knows about the browser's wallets before asking anything: none (the page offers
 * the phone-wallet paths instead of the button), or one on another chain (said, so the switch
 * request that follows is no surprise). Reads only eth_chainId, which needs no permission.
 */
export function walletNotice(chainId: number, button: HTMLElement): HTMLElement {
  const box = el("div", { class: "wallet-notice", id: "wallet-notice" });
  void fillWalletNotice(box, chainId, button);
  return box;
}

async function fillWalletNotice(box: HTMLElement, chainId: number, button: HTMLElement): Promise<void> {
  if (context.localRpcUrl) {
    box.append(
      el(
        "p",
        { class: "muted", id: "local-rpc-note" },
        `Local chain: your wallet is asked to add ${LOCAL_CHAIN_NAME} at ${context.localRpcUrl}. A wallet that keeps one RPC per chain id: set its Base Sepolia network's RPC URL to ${context.localRpcUrl} first, or it pays on the public testnet.`,
      ),
    );
  }
  const wallets = await discoverWallets();
  if (wallets.length === 0) {
    button.hidden = true;
    box.append(el("p", { class: "notice", id: "no-wallet" }, "No wallet in this browser. Continue in a wallet app on your phone:"), handoff(true));
    box.dataset.ready = "none";
    return;
  }
  const [only] = wallets;
  if (only && wallets.length === 1) {
    try {
      const current = Number(await only.provider.request({ method: "eth_chainId" }));
      if (current !== chainId) {
        box.append(
          el(
            "p",
            { class: "notice", id: "other-chain" },
            `Your wallet is on ${chainName(current)}. It will be asked to switch to ${networkOf(chainId, context.localChain).name}.`,
          ),
        );
      }
    } catch {
      // a wallet that will not say: the switch request will tell
    }
  } else {
    box.append(el("p", { class: "muted", id: "several-wallets" }, `${wallets.length} wallets found: you will choose one.`));
  }
  box.append(handoff(false));
  box.dataset.ready = String(wallets.length);
}
