import express, { type RequestHandler } from "express";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Where the built checkout lives (not committed). */
export const CHECKOUT_DIST = join(ROOT, "dist/checkout");

/** The checkout's Content-Security-Policy: its own scripts, styles and API only; no frames, no forms, no third parties. */
export const CHECKOUT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The built checkout's folder, checked at boot: the service serves the bundle `npm run build` (or
 * `npm start`) wrote and never builds it itself. Throws, saying what to run, when it is missing.
 */
export function builtCheckout(dir = CHECKOUT_DIST): string {
  if (!existsSync(join(dir, "app.js")) || !existsSync(join(dir, "index.html"))) {
    throw new Error(`the checkout is not built (${dir}): run \`npm run build\` (npm start builds it by itself)`);
  }
  return dir;
}

/** Serves the built checkout under its mount path, with a strict CSP and no referrer. */
export function checkoutHandler(dir = CHECKOUT_DIST): RequestHandler {
  const files = express.static(dir, { index: "index.html", fallthrough: true, redirect: true });
  return (req, res, next) => {
    res.setHeader("Content-Security-Policy", CHECKOUT_CSP);
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Cache-Control", "no-store");
    files(req, res, next);
  };
}
