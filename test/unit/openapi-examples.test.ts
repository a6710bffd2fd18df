import { assert } from "chai";
import { readFileSync } from "node:fs";
import { getAddress } from "viem";
import { loadLiveDeployment } from "../../src/deployments.js";

const doc = JSON.parse(readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8")) as { paths: Record<string, Record<string, unknown>> };
const deployment = loadLiveDeployment(84532);
/** Hardhat's accounts #3 and #2, as the README's quickstart casts them. */
const MERCHANT = getAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906");
const PAYER = getAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");

/** Every `example` and `examples.*.value` of the document, with where it is. */
function examples(): Array<{ where: string; value: unknown }> {
  const found: Array<{ where: string; value: unknown }> = [];
  const walk = (node: unknown, where: string) => {
    if (!node || typeof node !== "object") return;
    for (const [k, v] of Object.entries(node)) {
      if (k === "example") found.push({ where, value: v });
      else if (k === "examples" && v && typeof v === "object")
        for (const [name, e] of Object.entries(v)) found.push({ where: `${where} ${name}`, value: (e as { value?: unknown }).value });
      else walk(v, `${where}/${k}`);
    }
  };
  walk(doc.paths, "");
  return found;
}

/** Every address in a value, with the field that holds it and the fields around it. */
function addresses(value: unknown, path: string[] = []): Array<{ key: string; path: string[]; address: string }> {
  if (typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value)) return [{ key: path.at(-1) ?? "", path, address: value }];
  if (Array.isArray(value)) return value.flatMap((v) => addresses(v, path));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => addresses(v, [...path, k]));
  return [];
}

describe("docs/openapi.json examples: every address has the meaning of its field", () => {
  const roles: Record<string, string> = {
    splitter: deployment.contracts.Splitter.address,
    recurring_charges: deployment.contracts.RecurringCharges.address,
    contract: deployment.contracts.RecurringCharges.address,
    spender: deployment.contracts.RecurringCharges.address,
    x402_receivers: deployment.contracts.X402Receivers.address,
    token: deployment.token.address,
    recipient: MERCHANT,
    merchant: MERCHANT,
    payer: PAYER,
  };
  const known = new Set([...Object.values(roles), MERCHANT, PAYER]);

  it("names the deployment's contracts and token, the merchant as recipient and the payer as payer", () => {
    let checked = 0;
    for (const { where, value } of examples())
      for (const a of addresses(value)) {
        if (a.key in roles) {
          assert.equal(a.address, roles[a.key], `${where}: ${a.path.join(".")}`);
          checked++;
        }
      }
    assert.isAbove(checked, 30);
  });

  it("gives a payment's own address and a receiver addresses of their own, never a contract's or an account's", () => {
    let seen = 0;
    for (const { where, value } of examples())
      for (const a of addresses(value)) {
        if (a.key === "deposit_address" || a.key === "pay_to") {
          assert.isFalse(known.has(a.address), `${where}: ${a.path.join(".")} is ${a.address}`);
          seen++;
        }
        if (a.key === "verifyingContract")
          assert.equal(a.address, a.path.includes("token_domain") ? deployment.token.address : deployment.contracts.RecurringCharges.address, where);
      }
    assert.isAbove(seen, 2);
  });

  it("in POST /v1/payments' answer, splitter, token, recipient and deposit_address are four different addresses", () => {
    const answer = (doc.paths["/v1/payments"]!.post as { responses: Record<string, { content: Record<string, { example: { pay: Record<string, string> } }> }> })
      .responses["200"]!.content["application/json"]!.example;
    const { splitter, token, recipient, deposit_address } = answer.pay;
    assert.equal(new Set([splitter, token, recipient, deposit_address]).size, 4, JSON.stringify(answer.pay));
  });
});
