/**
 * Paying without a wallet in this browser: open this same page in a phone wallet's in-app browser.
 * Only link formats that keep the page's fragment (where the capability lives) out of every request
 * are offered: MetaMask's universal link carries the page URL in its path, so the fragment stays on
 * the device (a browser never sends a fragment). Coinbase Wallet's `go.cb-w.com/dapp?cb_url=…` and
 * Trust Wallet's `link.trustwallet.com/open_url?url=…` put the whole URL, token included, in a query
 * string sent to a third party's server when the app is not installed: for those wallets the page
 * offers "copy link" and the QR code instead (docs/decisions.md).
 */
export interface WalletLink {
  id: string;
  name: string;
  href: string;
}

export function walletLinks(pageUrl: string): WalletLink[] {
  const url = new URL(pageUrl).toString();
  return [
    // docs.metamask.io "Use deeplinks": link.metamask.io/dapp/{dappUrl}, the URL unencoded, so its
    // '#' starts this link's own fragment and the token never reaches link.metamask.io.
    { id: "metamask", name: "MetaMask", href: `https://link.metamask.io/dapp/${url.replace(/^https?:\/\//, "")}` },
  ];
}
