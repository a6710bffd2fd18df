import { readFileSync } from "node:fs";
import jsQRModule from "jsqr";
import { PNG } from "pngjs";
import type { Browser, Locator } from "playwright-core";

/** jsQR's CommonJS export, whichever way the module loader wraps it. */
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as (
  data: Uint8ClampedArray,
  width: number,
  height: number,
) => { data: string } | null;

/**
 * Reads a QR code in a PNG back as a phone camera would, with jsQR (a maintained JavaScript decoder
 * from npm; no system package) over the PNG's pixels (pngjs).
 */
export function readQr(png: string): string {
  const image = PNG.sync.read(readFileSync(png));
  const code = jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), image.width, image.height);
  if (!code) throw new Error(`no QR code found in ${png}`);
  return code.data;
}

/**
 * The QR code a page shows (an inline SVG), read back as a phone camera held close would see it: the
 * very SVG, drawn 880 px wide on white with a quiet zone, screenshot to `png`, then decoded.
 */
export async function readQrOnScreen(browser: Browser, svg: Locator, png: string): Promise<string> {
  const markup = await svg.evaluate((node) => node.outerHTML);
  const camera = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
  await camera.setContent(`<body style="margin:0;background:#fff"><div style="padding:60px;width:880px;height:880px">${markup}</div></body>`);
  await camera.locator("svg").evaluate((node) => {
    node.setAttribute("width", "880");
    node.setAttribute("height", "880");
    node.removeAttribute("style");
  });
  await camera.screenshot({ path: png });
  await camera.close();
  return readQr(png);
}
