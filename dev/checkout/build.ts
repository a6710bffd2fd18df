import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CHECKOUT_DIST } from "../../src/http/checkout.js";

const SOURCE = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "src/checkout");

let built: Promise<string> | null = null;

/**
 * Bundles the checkout (src/checkout: TypeScript, viem and the typed client) into static files in
 * `outDir` (dist/checkout, not committed), once per process. `npm run build` and `npm start` run it;
 * the service only serves what it wrote.
 */
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
