import { assert } from "chai";
import { parseFlags } from "../../client/src/cli-args.js";

const TOKEN = "sc.k1.eyJzdWIiOiIweDAxIn0.c2lnbmF0dXJlMTIz";
const RULES = {
  flags: { "--base-url": "text", "--every": "number", "--json": "switch" },
  tokenFlags: ["--link"],
  whereTokensGo: "set STABLECOIN_MANAGE_TOKEN or pass --manage-token-file <path>",
  usage: "usage: test --base-url <url>",
} as const;

describe("the client's command-line flags (client/src/cli-args.ts)", () => {
  it("reads text, numbers and switches; a flag not given is absent", () => {
    assert.deepEqual(parseFlags(["--base-url", "http://127.0.0.1:1", "--every", "30", "--json"], RULES), {
      "--base-url": "http://127.0.0.1:1",
      "--every": 30,
      "--json": true,
    });
    assert.deepEqual(parseFlags([], RULES), {});
  });

  it("refuses a capability token anywhere in argv, or a token flag however written, and never echoes the token", () => {
    for (const argv of [[TOKEN], ["--base-url", TOKEN], ["--link", TOKEN], [`--link=${TOKEN}`], ["--link"], ["sc.short"]]) {
      const error = (() => {
        try {
          parseFlags(argv, RULES);
        } catch (e) {
          return e as Error;
        }
        return null;
      })();
      assert.isNotNull(error, argv.join(" "));
      assert.match(error!.message, /never taken from the command line .*: set STABLECOIN_MANAGE_TOKEN or pass --manage-token-file <path>$/);
      assert.notInclude(error!.message, TOKEN);
    }
  });

  it("names an unknown argument with the usage, and a flag whose value is missing", () => {
    assert.throws(() => parseFlags(["--store", "x"], RULES), /^unknown argument --store\nusage: test --base-url <url>$/);
    assert.throws(() => parseFlags(["--base-url"], RULES), /^--base-url: a value is missing$/);
    assert.throws(() => parseFlags(["--toString"], RULES), /unknown argument --toString/, "only the command's own flags, not an object's properties");
  });
});
