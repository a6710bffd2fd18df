/**
 * Paying without a wallet in this browser: open this same page (fragment included, so the token
 * comes along and never reaches a server) in a phone wallet's in-app browser, or scan a QR code of
 * it to continue on a phone. Formats from each wallet's deep-link documentation.
 */
export interface WalletLink {
  id: string;
  name: string;
  href: string;
}

export function walletLinks(pageUrl: string): WalletLink[] {
  const url = new URL(pageUrl).toString();
  return [
    // docs.metamask.io "Use deeplinks": link.metamask.io/dapp/{dappUrl}, the URL unencoded
    // (encoding / ? # has been reported to open a blank in-app tab).
    { id: "metamask", name: "MetaMask", href: `https://link.metamask.io/dapp/${url.replace(/^https?:\/\//, "")}` },
    // https://docs.cdp.coinbase.com/coinbase-wallet/developer-guidance/mobile-dapp-integration: percent-encoded.
    { id: "coinbase", name: "Coinbase Wallet / Base app", href: `https://go.cb-w.com/dapp?cb_url=${encodeURIComponent(url)}` },
    // https://developer.trustwallet.com/developer/develop-for-trust/deeplinking: coin_id 60 (EVM), percent-encoded URL.
    { id: "trust", name: "Trust Wallet", href: `https://link.trustwallet.com/open_url?coin_id=60&url=${encodeURIComponent(url)}` },
  ];
}
