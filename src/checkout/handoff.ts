import qrcode from "qrcode-generator";

// A QR code of the page, so a desktop buyer continues on a phone (wallet-links.ts is the other path).
const SVG = "http://www.w3.org/2000/svg";

/**
 * A QR code of `text` as an inline SVG element (one path; no HTML strings, no image from elsewhere,
 * so the CSP stays as it is). Error correction L (a screen shows it clean; fewer, larger modules for a long URL); a 4-module quiet zone.
 */
export function qrSvg(text: string, label: string): SVGSVGElement {
  const qr = qrcode(0, "L");
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
