import { build } from "esbuild";
import express, { type RequestHandler } from "express";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SOURCE = join(ROOT, "src/checkout");
/** Where the built checkout lives (not committed). */
export const CHECKOUT_DIST = join(ROOT, "dist/checkout");

/** The checkout's Content-Security-Policy: its own scripts, styles and API only; no frames, no forms, no third parties. */
export const CHECKOUT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

let built: Promise<string> | null = null;

/** Bundles the checkout (TypeScript + viem) into static files, once per process. */
export function buildCheckout(outDir = CHECKOUT_DIST): Promise<string> {
  built ??= (async () => {
    mkdirSync(outDir, { recursive: true });
    await build({
      entryPoints: [join(SOURCE, "main.ts")],
      outfile: join(outDir, "app.js"),
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      minify: true,
      legalComments: "none",
      logLevel: "silent",
    });
    for (const file of ["index.html", "styles.css", "favicon.svg"]) copyFileSync(join(SOURCE, file), join(outDir, file));
    return outDir;
  })();
  return built;
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
