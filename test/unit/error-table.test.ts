import { assert } from "chai";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ERROR_CODES } from "../../src/errors.js";
import { HTTP_STATUS } from "../../src/http/error-status.js";
import { buildOpenApi } from "../../src/http/openapi.js";
import { describedRoutes } from "../../src/http/routes/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Every error code a response schema of the OpenAPI document names (what the wire can answer). */
function wireCodes(): Set<string> {
  const doc = buildOpenApi(describedRoutes()) as { components: { schemas: Record<string, { properties?: { error?: { enum?: string[]; const?: string } } }> } };
  const codes = new Set<string>();
  for (const schema of Object.values(doc.components.schemas)) {
    const error = schema.properties?.error;
    for (const code of error?.enum ?? (error?.const ? [error.const] : [])) codes.add(code);
  }
  return codes;
}

describe("docs/errors.md: the error-code table", () => {
  const table = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
  const rows = new Map(
    [...table.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| ([A-Z_]*) \| (\d*) \| (.+) \|$/gm)].map((m) => [
      m[1]!,
      { status: Number(m[2]), action: m[3], what: m[5] },
    ]),
  );

  it("has a row for every code the OpenAPI document's error schemas name, and for every code of the error model", () => {
    const codes = wireCodes();
    assert.isAbove(codes.size, 30);
    for (const code of codes) assert.isTrue(rows.has(code), `${code} is missing from docs/errors.md`);
    for (const code of Object.keys(ERROR_CODES)) assert.isTrue(rows.has(code), `${code} is missing from docs/errors.md`);
  });

  it("gives each code the status and action the service answers it with, and something to do", () => {
    for (const [code, row] of rows) {
      assert.equal(row.status, HTTP_STATUS[code as keyof typeof HTTP_STATUS], code);
      assert.equal(row.action, (ERROR_CODES[code as keyof typeof ERROR_CODES] as { action?: string }).action ?? "", code);
      assert.isAbove(row.what.length, 10, code);
    }
  });

  it("is the committed output of npm run errors", async function () {
    this.timeout(60_000);
    await promisify(execFile)(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/error-table.ts", "--check"], { cwd: root });
  });
});
