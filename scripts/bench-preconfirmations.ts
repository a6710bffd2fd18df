// `npm run bench -- --base` (after bench-base.ts), or alone with `npm run bench -- --base --preconfirmations-only`:
// the service's waits on a node that plays Base with Flashblocks (dev/localchain/base-node.ts: 50 ms
// per JSON-RPC round trip, a block every 2 s, a Flashblock every 200 ms), then on the same node with
// preconfirmations switched off mid-run (Base's fallback to 2 s blocks). The service runs as
// `npm start` runs it (its loops on their timers, PRECONFIRMATIONS on), FINALITY 2. Per phase,
// BENCH_PRECONF_PAYMENTS (20) of each, started 700 ms apart so they fall at every point of a block:
//   - a wallet's `pay` broadcast → verify answers PAYMENT_CONFIRMING on the chain's word (preconfirmed,
//     or its block sealed) → valid: true;
//   - a plain transfer to a payment address broadcast → its settlement preconfirmed (or, without
//     Flashblocks, sealed), read from the node every 50 ms → verify of the transfer's hash answers valid: true;
//   - a renewal wave of BENCH_PRECONF_PAYMENTS subscriptions → every POST /v1/charges answered CONFIRMING
//     (and how many of them said preconfirmed).
// Each as a ratio to the block time (2 s), p50 and p95. Verify is polled every 100 ms until CONFIRMING,
// every 250 ms until valid (so each figure carries up to 0.05× and 0.125× of polling). `--write` puts the table into docs/benchmarks.md.
import { readFileSync, writeFileSync } from "node:fs";
import { encodeFunctionData, erc20Abi, parseEther, type Hex } from "viem";
import { splitterAbi } from "../src/generated/contracts.js";
import { LOCAL_ROLES, localAccount, startLocalChain } from "../dev/localchain/harness.js";
import { BASE_BLOCK_MS, BASE_FLASHBLOCK_MS, REMOTE_NODE_LATENCY_MS, startBaseNode } from "../dev/localchain/base-node.js";
import { createService, listen } from "../src/service.js";
import { createLogger } from "../src/logger.js";
import { paymentKeyOf } from "../src/payments/verify.js";
import { PAID_EVENT } from "../src/chain/contracts/splitter.js";
import { configFor } from "../test/helpers/service.js";
import { walletTypedData, type ResolvedTerms } from "../test/helpers/recurring.js";
import { approve, send } from "../test/helpers/tx.js";
import { buildCheckout } from "../dev/checkout/build.js";

const COUNT = Number(process.env.BENCH_PRECONF_PAYMENTS ?? 20);
const STAGGER_MS = 700;
const POLL_MS = 100;
/** valid: true is a matter of sealed blocks (2 s each): asked less often, so twenty flows at once do not load the node they measure. */
const VALID_POLL_MS = 250;
const PERIOD = 30 * 86_400;

await buildCheckout(); // the service serves the checkout bundle
console.log("preconfirmations: starting the local chain…");
const chain = await startLocalChain({ port: 0, fork: null });
const funder = chain.accounts[LOCAL_ROLES.firstUser + 6]!;
const payer = chain.accounts[LOCAL_ROLES.firstUser + 3]!;
const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
const token = chain.deployment.token.address;
const splitter = chain.deployment.contracts.Splitter.address;
const env = {
  PORT: "0",
  OPS_PORT: "0",
  RPC_TIMEOUT_MS: "30000",
  RATE_LIMIT_PER_MINUTE: "1000000000",
  WEBHOOKS_ENABLED: "false",
  MAX_GAS_REIMBURSEMENT: "1",
  FINALITY: "2",
};
const quiet = { logger: createLogger("silent") };
const postJson = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(
    async (r) => (await r.json()) as Record<string, unknown>,
  );

// Setup on the automining chain, not measured: the exchanges' funds, the payer's approval, the subscriptions' first charges.
console.log(`preconfirmations: setting up ${COUNT} payments, transfers and renewals per phase (automining, not measured)…`);
const exchanges = Array.from({ length: 2 * COUNT }, (_, i) => localAccount(2_000 + i));
for (const e of exchanges) {
  await chain.testClient.setBalance({ address: e.address, value: parseEther("1") });
  await send(chain, funder, { address: token, abi: erc20Abi, functionName: "transfer", args: [e.address, 5_000_000n] });
}
await approve(chain, payer, token, splitter, 10n ** 15n);
const setup = await createService(configFor(chain.rpcUrl!, env), quiet);
const setupApi = await listen(setup);
const subscriptions: string[] = [];
for (let i = 0; i < 2 * COUNT; i++) {
  const created = await postJson(setupApi.apiUrl, "/v1/subscriptions", { recipient: merchant.address, amount: "1", period: PERIOD });
  const resolved = await postJson(setupApi.apiUrl, "/v1/subscriptions/resolve", { setup_token: created.setup_token });
  const signature = await payer.signTypedData(walletTypedData(resolved as unknown as ResolvedTerms, payer.address) as never);
  const finalized = await postJson(setupApi.apiUrl, "/v1/subscriptions/finalize", { setup_token: created.setup_token, payer: payer.address, signature });
  subscriptions.push(finalized.subscription as string);
}
await approve(chain, payer, token, chain.deployment.contracts.RecurringCharges.address, 10n ** 15n);
for (const s of subscriptions) {
  const first = await postJson(setupApi.apiUrl, "/v1/charges", { subscription: s });
  if (first.status !== "CONFIRMING") throw new Error(`first charge: ${JSON.stringify(first)}`);
}
await setupApi.close();
await setup.close();

// From here on the chain plays Base, Flashblocks on; the service as npm start runs it.
const node = await startBaseNode(chain, {});
const service = await createService(configFor(node.url, env), quiet);
const running = await listen(service);
const api = running.apiUrl;
const client = service.client;

/** Milliseconds from `start` until `done()` answers true, asked every POLL_MS. */
async function until(start: number, done: () => Promise<boolean>, timeoutMs = 120_000, pollMs = POLL_MS): Promise<number> {
  for (;;) {
    if (await done()) return performance.now() - start;
    if (performance.now() - start > timeoutMs) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
const sealedReceipt = async (hash: Hex) => {
  const receipt = await client.getTransactionReceipt({ hash }).catch(() => null);
  return receipt !== null && receipt.blockNumber <= (await client.getBlockNumber({ cacheTime: 0 }));
};
const verify = (intent: string, tx_hash: Hex) => postJson(api, "/v1/payments/verify", { intent, tx_hash });
const staggered = <T>(run: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: COUNT }, (_, i) => new Promise((r) => setTimeout(r, i * STAGGER_MS)).then(() => run(i))));

let payerNonce = await client.getTransactionCount({ address: payer.address, blockTag: "pending" });
const fees = async () => {
  const f = await client.estimateFeesPerGas();
  return { maxFeePerGas: f.maxFeePerGas * 2n, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
};

/** A wallet's `pay`: broadcast → verify's PAYMENT_CONFIRMING rests on the chain (preconfirmed, or sealed) → valid. */
async function walletPayment(): Promise<{ confirming: number; valid: number; preconfirmed: boolean }> {
  const intent = await postJson(api, "/v1/payments", { recipient: merchant.address, amount: "1.5" });
  const pay = intent.pay as { amount_units: string; reference: Hex };
  const raw = await payer.signTransaction({
    chainId: chain.chain.id,
    type: "eip1559",
    nonce: payerNonce++,
    to: splitter,
    gas: 200_000n,
    data: encodeFunctionData({ abi: splitterAbi, functionName: "pay", args: [token, merchant.address, BigInt(pay.amount_units), pay.reference] }),
    ...(await fees()),
  });
  const start = performance.now();
  const hash = await client.sendRawTransaction({ serializedTransaction: raw });
  let preconfirmed = false;
  const confirming = await until(start, async () => {
    const v = await verify(intent.intent as string, hash);
    preconfirmed ||= v.preconfirmed === true;
    return v.valid === true || v.preconfirmed === true || (v.code === "PAYMENT_CONFIRMING" && (await sealedReceipt(hash)));
  });
  const valid = await until(start, async () => (await verify(intent.intent as string, hash)).valid === true, 120_000, VALID_POLL_MS);
  return { confirming, valid, preconfirmed };
}

/** A plain transfer to a payment address: broadcast → its settlement preconfirmed (or sealed) → valid. */
async function transferPayment(from: (typeof exchanges)[number]): Promise<{ settlement: number; valid: number; preconfirmed: boolean }> {
  const intent = await postJson(api, "/v1/payments", { recipient: merchant.address, amount: "2.5" });
  const pay = intent.pay as { amount_units: string; reference: Hex; deposit_address: Hex };
  const key = paymentKeyOf(token, { recipient: merchant.address, amountUnits: BigInt(pay.amount_units), reference: pay.reference });
  const raw = await from.signTransaction({
    chainId: chain.chain.id,
    type: "eip1559",
    nonce: await client.getTransactionCount({ address: from.address, blockTag: "pending" }),
    to: token,
    gas: 100_000n,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [pay.deposit_address, BigInt(pay.amount_units)] }),
    ...(await fees()),
  });
  const start = performance.now();
  const hash = await client.sendRawTransaction({ serializedTransaction: raw });
  // The settlement, read from the node itself every 50 ms: its Paid in the pending block with a receipt
  // served (preconfirmed), or the Splitter's guard set in a sealed block.
  let preconfirmed = false;
  const settlement = await until(
    start,
    async () => {
      const [paid] = await client.getLogs({ address: splitter, event: PAID_EVENT, args: { paymentKey: key }, fromBlock: "pending", toBlock: "pending" });
      const receipt = paid?.transactionHash ? await client.getTransactionReceipt({ hash: paid.transactionHash }).catch(() => null) : null;
      if (receipt && receipt.blockNumber > (await client.getBlockNumber({ cacheTime: 0 }))) {
        preconfirmed = true;
        return true;
      }
      return (await client.readContract({ address: splitter, abi: splitterAbi, functionName: "settledBlock", args: [key] })) !== 0n;
    },
    120_000,
    50,
  );
  const valid = await until(start, async () => (await verify(intent.intent as string, hash)).valid === true, 120_000, VALID_POLL_MS);
  return { settlement, valid, preconfirmed };
}

/** A renewal wave: every POST /v1/charges at once; each answer's time, and how many said preconfirmed. */
async function renewalWave(wave: string[]): Promise<{ answers: number[]; all: number; preconfirmed: number }> {
  await chain.advanceTime(PERIOD);
  const start = performance.now();
  const answers = await Promise.all(
    wave.map(async (s) => {
      const a = await postJson(api, "/v1/charges", { subscription: s });
      if (a.status !== "CONFIRMING") throw new Error(`renewal: ${JSON.stringify(a)}`);
      return { ms: performance.now() - start, preconfirmed: a.preconfirmed === true, hash: a.tx_hash as Hex };
    }),
  );
  for (const hash of new Set(answers.map((a) => a.hash))) await client.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: 120_000 });
  return { answers: answers.map((a) => a.ms), all: Math.max(...answers.map((a) => a.ms)), preconfirmed: answers.filter((a) => a.preconfirmed).length };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const x = (ms: number) => `${(ms / BASE_BLOCK_MS).toFixed(2)}×`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const row = (phase: string, what: string, values: number[], note = "") =>
  `| ${phase} | ${what} | ${x(percentile(values, 50))} (${s(percentile(values, 50))}) | ${x(percentile(values, 95))} (${s(percentile(values, 95))}) | ${note} |`;

const rows: string[] = [];
for (const phase of ["on", "off"] as const) {
  if (phase === "off") await node.setPreconfirmations(false);
  const label = phase === "on" ? `Flashblocks every ${BASE_FLASHBLOCK_MS} ms` : "Flashblocks off (switched off mid-run)";
  const offset = phase === "on" ? 0 : COUNT;
  console.log(`preconfirmations (${label}): a renewal wave of ${COUNT}…`);
  const wave = await renewalWave(subscriptions.slice(offset, offset + COUNT));
  console.log(`preconfirmations (${label}): ${COUNT} wallet payments…`);
  const wallet = await staggered(() => walletPayment());
  console.log(`preconfirmations (${label}): ${COUNT} plain transfers to payment addresses…`);
  const transfers = await staggered((i) => transferPayment(exchanges[offset + i]!));
  const said = (n: number) => `${n} of ${COUNT} said preconfirmed`;
  rows.push(
    row(
      label,
      "wallet `pay` broadcast → verify PAYMENT_CONFIRMING on the chain's word",
      wallet.map((w) => w.confirming),
      said(wallet.filter((w) => w.preconfirmed).length),
    ),
    row(
      label,
      "wallet `pay` broadcast → verify valid: true",
      wallet.map((w) => w.valid),
      "finality: 2 sealed blocks",
    ),
    row(
      label,
      "plain transfer broadcast → its settlement preconfirmed (off: sealed)",
      transfers.map((t) => t.settlement),
      said(transfers.filter((t) => t.preconfirmed).length),
    ),
    row(
      label,
      "plain transfer broadcast → verify valid: true",
      transfers.map((t) => t.valid),
      "finality: 2 sealed blocks",
    ),
    row(label, `renewal wave of ${COUNT} → each answer CONFIRMING`, wave.answers, `all answered in ${x(wave.all)}; ${said(wave.preconfirmed)}`),
  );
}

const table = [
  `| Base-like node (${REMOTE_NODE_LATENCY_MS} ms per round trip, a block every ${BASE_BLOCK_MS / 1000} s), service as npm start runs it, FINALITY 2; ${COUNT} of each per phase, 700 ms apart | Measure | p50 (× block time) | p95 (× block time) | |`,
  "|---|---|---:|---:|---|",
  ...rows,
].join("\n");
console.log("");
console.log(table);
console.log("");
if (process.argv.includes("--write")) {
  const doc = new URL("../docs/benchmarks.md", import.meta.url);
  writeFileSync(
    doc,
    readFileSync(doc, "utf8").replace(
      /<!-- bench-preconfirmations:begin -->[\s\S]*<!-- bench-preconfirmations:end -->/,
      `<!-- bench-preconfirmations:begin -->\n${table}\n<!-- bench-preconfirmations:end -->`,
    ),
  );
  console.log("docs/benchmarks.md updated (preconfirmations)");
}
await running.close();
await service.close();
await node.close();
await chain.close();
