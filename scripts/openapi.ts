// Writes docs/openapi.json from the routes' zod schemas; `--check` fails when the committed file drifted.
import { writeOrCheckGenerated } from "./lib/generated-file.js";
import { buildOpenApi } from "../src/http/openapi.js";
import { describedRoutes } from "../src/http/routes/index.js";

const text = JSON.stringify(buildOpenApi(describedRoutes()), null, 2) + "\n";
writeOrCheckGenerated(
  { url: new URL("../docs/openapi.json", import.meta.url), name: "docs/openapi.json", command: "npm run openapi" },
  text,
  `docs/openapi.json written (${Object.keys(JSON.parse(text).paths).length} paths)`,
);
