import { assert } from "chai";
import { readFileSync } from "node:fs";
import { useLocalChain } from "../helpers/local-chain.js";
import { GAS_TARGETS, measureGas } from "../gas/scenarios.js";
import { COVERAGE_BUILD } from "../../dev/deploy/build-mode.js";

describe("Gas", () => {
  const local = useLocalChain();

  it("matches the committed snapshot and stays under the targets", async function () {
    // Instrumented bytecode (npm run coverage) spends more gas by design: figures only from the real build.
    if (COVERAGE_BUILD) this.skip();
    const figures = await measureGas(local.chain);
    const snapshot = JSON.parse(readFileSync(new URL("../../snapshots/gas.json", import.meta.url), "utf8"));
    for (const [op, target] of Object.entries(GAS_TARGETS)) {
      assert.isAtMost(figures[op]!, target, `${op} over its target`);
    }
    assert.deepEqual(figures, snapshot, "gas moved: run `npm run gas -- --update` and review the diff");
  });
});
