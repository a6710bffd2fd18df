import { assert } from "chai";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { listen } from "../../src/service.js";
import { useService } from "../helpers/service.js";

const run = promisify(execFile);
const tsx = createRequire(import.meta.url).resolve("tsx/cli");

/** Runs `npm run <script>`'s file as npm would (Node 24, tsx), with only the given variables set. */
async function script(name: string, args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [tsx, `scripts/${name}.ts`, ...args], { env: { PATH: process.env.PATH!, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("helper scripts (npm run pay / refund)", function () {
  this.timeout(120_000);
  const h = useService({ PORT: "0", OPS_PORT: "0" });

  it("find the stack through API_URL and CHAIN_RPC_URL, pay an intent, and send its full refund from the merchant's local account", async () => {
    const running = await listen(h.service);
    try {
      const env = { API_URL: running.apiUrl, CHAIN_RPC_URL: h.chain.rpcUrl! };
      const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
      const payment = (await h.api.post("/v1/payments").send({ recipient: merchant, amount: "3.25" })).body;
      const paid = await script("pay", [payment.intent], env);
      assert.equal(paid.code, 0, paid.stderr);
      const result = JSON.parse(paid.stdout.trim());
      assert.include(result, { intent: payment.intent, reference: payment.reference, status: "success" });
      const txHash = result.tx_hash as string;
      assert.match(txHash, /^0x[0-9a-f]{64}$/);
      assert.deepEqual(result.verify, { intent: payment.intent, tx_hash: txHash });
      assert.equal(result.next, `npm run refund -- ${payment.intent} ${txHash}`);
      assert.include(paid.stderr, "paying 3.250000 USDC", "progress goes to stderr");
      await h.chain.mine(2);
      const refunded = await script("refund", [payment.intent, txHash], env);
      assert.equal(refunded.code, 0, refunded.stderr);
      const verify = JSON.parse(refunded.stdout.trim());
      assert.include(verify, { intent: payment.intent, tx_hash: txHash, refund_amount: "3250000" });
      await h.chain.mine(2);
      const answer = await h.api.post("/v1/refunds/verify").send(verify);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.include(answer.body, { status: "REFUNDED", refund_amount: "3250000" });
    } finally {
      await running.close();
    }
  });

  it("fail with one line and no stack trace on bad input or when nothing runs", async () => {
    const cases: Array<[string, string[], Record<string, string>, RegExp]> = [
      ["pay", [], {}, /^usage: npm run pay/],
      ["pay", ["pi.x"], { PORT: "x" }, /^PORT=x is not a port/],
      ["pay", ["pi.x"], { PORT: "9" }, /^nothing answers at http:\/\/127\.0\.0\.1:9: start the stack/],
      ["pay", ["pi.x", "99"], {}, /^account must be a local account index 0–19/],
      ["refund", ["pi.x", "0x12"], {}, /^tx_hash must be 0x and 64 hex digits/],
      ["subscribe", ["st.x"], { API_URL: "ftp://x" }, /^API_URL=ftp:\/\/x is not an http\(s\) URL/],
    ];
    for (const [name, args, env, expected] of cases) {
      const result = await script(name, args, env);
      assert.equal(result.code, 1, `${name} ${args.join(" ")}`);
      const lines = result.stderr.trim().split("\n");
      assert.lengthOf(lines, 1, result.stderr);
      assert.match(lines[0]!, expected);
    }
  });
});
