// Writes docs/openapi.json from the routes' zod schemas; `--check` fails when the committed file drifted.
import { readFileSync, writeFileSync } from "node:fs";
import { buildOpenApi } from "../src/http/openapi.js";
import { describedRoutes } from "../src/http/routes/index.js";

const file = new URL("../docs/openapi.json", import.meta.url);
const text = JSON.stringify(buildOpenApi(describedRoutes()), null, 2) + "\n";
if (process.argv.includes("--check")) {
  const committed = (() => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return "";
    }
  })();
  if (committed !== text) {
    console.error("docs/openapi.json is stale: run `npm run openapi` and commit it");
    process.exit(1);
  }
  console.log("docs/openapi.json is up to date");
} else {
  writeFileSync(file, text);
  console.log(`docs/openapi.json written (${Object.keys(JSON.parse(text).paths).length} paths)`);
}
