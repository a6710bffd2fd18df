import qrcode from "qrcode-generator";

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

const SVG = "http://www.w3.org/2000/svg";

/**
 * A QR code of `text` as an inline SVG element (one path; no HTML strings, no image from elsewhere,
 * so the CSP stays as it is). Error correction M; a 4-module quiet zone.
 */
export function qrSvg(text: string, label: string): SVGSVGElement {
  const qr = qrcode(0, "M");
  qr.addData(text, "Byte");
  qr.make();
  const count = qr.getModuleCount();
  const size = count + 8;
  let d = "";
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; col++) if (qr.isDark(row, col)) d += `M${col + 4} ${row + 4}h1v1h-1z`;
  }
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.setAttribute("shape-rendering", "crispEdges");
  svg.setAttribute("class", "qr");
  svg.dataset.modules = String(count);
  const background = document.createElementNS(SVG, "rect");
  background.setAttribute("width", String(size));
  background.setAttribute("height", String(size));
  background.setAttribute("fill", "#fff");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000");
  svg.append(background, path);
  return svg;
}
