import { assert } from "chai";
import { readFileSync } from "node:fs";
import { CONTRACT_MODULES } from "../../scripts/mutation/modules.js";
import { maskedSource, solidityMutants } from "../../scripts/mutation/solidity-mutants.js";

const CONTRACT = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {X} from "./X.sol"; // a < b

contract C {
    uint256 constant LIMIT = 10;
    mapping(address => uint256) internal owed;
    error Over(uint256 amount);

    function f(uint256 a, uint256 b) external returns (uint256) {
        require(a <= LIMIT, "a + b");
        if (a > b && b != 0) revert Over(a);
        owed[msg.sender] += a * b;
        a++;
        return a - b << 2;
    }

    function g(uint256 held) external pure returns (uint256 r) {
        assembly {
            if iszero(lt(held, 3)) { revert(0, 0) }
            r := add(held, 1)
        }
    }
}
`;

const mutate = () => solidityMutants("contracts/C.sol", CONTRACT);
const at = (line: number) => mutate().filter((m) => m.line === line);
const replaced = (line: number) => at(line).map((m) => `${m.operator}:${m.original}→${m.replacement}`);

describe("the Solidity mutator (npm run mutation)", () => {
  it("masks comments and strings, keeping every offset", () => {
    const masked = maskedSource(CONTRACT);
    assert.equal(masked.length, CONTRACT.length);
    assert.notInclude(masked, "a < b");
    assert.notInclude(masked, '"a + b"');
    assert.include(masked, "require(a <= LIMIT,");
  });

  it("mutates nothing outside a contract body: pragma, imports, comments, strings", () => {
    for (const line of [1, 2, 4]) assert.deepEqual(at(line), [], `line ${line}`);
    // Only a removed require carries its message along; nothing is changed inside a string.
    for (const m of mutate().filter((m) => m.operator !== "require-removal")) assert.notInclude(m.original, '"');
  });

  it("swaps comparisons, arithmetic and logic, and removes requires and reverts, where the code decides", () => {
    assert.sameMembers(replaced(12), ['require-removal:require(a <= LIMIT, "a + b");→', "comparison-swap:<=→<"]);
    assert.sameMembers(replaced(13), [
      "comparison-swap:>→>=",
      "logic-swap:&&→||",
      "comparison-swap:!=→==",
      "constant-change:0→1",
      "revert-removal:revert Over(a);→{}",
    ]);
    assert.sameMembers(replaced(14), ["arithmetic-swap:+=→-=", "arithmetic-swap:*→/"]);
  });

  it("leaves =>, ++ and shifts alone, and changes constants in the contract's body", () => {
    assert.deepEqual(replaced(8), [], "mapping's =>");
    assert.deepEqual(replaced(15), [], "a++");
    assert.sameMembers(replaced(16), ["arithmetic-swap:-→+", "constant-change:2→3"], "<< is a shift, not a comparison");
    assert.sameMembers(replaced(7), ["constant-change:10→11"]);
  });

  it("mutates assembly as calls: lt ↔ gt, add ↔ sub, an iszero dropped, a revert call removed", () => {
    assert.sameMembers(replaced(21), [
      "negation-removal:iszero(lt(held, 3))→lt(held, 3)",
      "yul-swap:lt→gt",
      "constant-change:3→4",
      "revert-removal:revert(0, 0)→",
      "constant-change:0→1",
      "constant-change:0→1",
    ]);
    assert.sameMembers(replaced(22), ["yul-swap:add→sub", "constant-change:1→2"]);
  });

  it("writes each mutant as the source with exactly its one change, under an id of its own", () => {
    const mutants = mutate();
    assert.equal(new Set(mutants.map((m) => m.id)).size, mutants.length);
    for (const m of mutants) {
      const lines = m.source.split("\n");
      const original = CONTRACT.split("\n");
      const changed = lines.map((l, i) => (l === original[i] ? null : i + 1)).filter((l) => l !== null);
      assert.deepEqual(changed, [m.line], m.id);
    }
  });

  it("finds mutants in each of our contracts, none twice", () => {
    for (const contract of CONTRACT_MODULES) {
      const mutants = solidityMutants(contract.file, readFileSync(contract.file, "utf8"));
      assert.isAbove(mutants.length, 20, contract.name);
      assert.equal(new Set(mutants.map((m) => m.id)).size, mutants.length, contract.name);
    }
  });
});
