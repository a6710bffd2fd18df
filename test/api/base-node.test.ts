import { assert } from "chai";
import supertest from "supertest";
import { createPublicClient, http, parseEventLogs, type Hex } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { createService, type Service } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import { POOL_WINDOW } from "../../src/recurring/relayer.js";
import { configFor, useService } from "../helpers/service.js";
import { manySubscriptions } from "../helpers/recurring.js";
import { balanceOf } from "../helpers/tx.js";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { x402Client } from "@x402/fetch";

/**
 * Month-start bursts on a node like Base's (dev/localchain/base-node.ts): 50 ms per round trip, a
 * block every 200 ms, a pool that refuses a sender's 17th unmined transaction. The relayer keeps within
 * the pool's window and retries a refused send: no merchant sees a 502, no nonce is left behind.
 */
describe("charges and x402 settlements on a Base-like node (200 ms blocks, 16 pending per sender, 50 ms round trips)", function () {
  this.timeout(180_000);
  const h = useService({}, { chain: { sameSecondBlocks: true } });
  const relayer = () => h.chain.accounts[LOCAL_ROLES.relayer]!.address;
  let node: BaseNode | null = null;
  let service: Service | null = null;

  afterEach(async () => {
    await service?.close();
    await node?.close();
    service = null;
    node = null;
  });

  /** `count` concurrent charges through a service on the node; returns the node's counts and the transactions sent. */
  async function burst(count: number, accountSlots: number, env: Record<string, string> = {}) {
    const subs = await manySubscriptions(h, h.api, count); // set up on the automining chain
    const start = await h.chain.publicClient.getTransactionCount({ address: relayer() });
    node = await startBaseNode(h.chain, { accountSlots });
    service = await createService(configFor(node.url, { RPC_TIMEOUT_MS: "10000", ...env }), {
      logger: createLogger("silent"),
      database: h.database,
      now: h.clock.now,
    });
    const api = supertest(service.app);
    const answers = await Promise.all(subs.map((s) => api.post("/v1/charges").send({ subscription: s.subscription })));
    const statuses = answers.map((a) => a.status);
    assert.deepEqual([...new Set(statuses)], [200], `every charge answered 200: ${JSON.stringify(answers.filter((a) => a.status !== 200).map((a) => a.body))}`);
    for (const a of answers) assert.equal(a.body.status, "CONFIRMING", JSON.stringify(a.body));
    const hashes = answers.map((a) => a.body.tx_hash as Hex);
    const transactions = [...new Set(hashes)];
    // Every transaction mined, at consecutive nonces: no gap left behind.
    const deadline = Date.now() + 60_000;
    while ((await h.chain.publicClient.getTransactionCount({ address: relayer() })) < start + transactions.length) {
      assert.isBelow(Date.now(), deadline, "mined within a minute");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(
      await h.chain.publicClient.getTransactionCount({ address: relayer(), blockTag: "pending" }),
      start + transactions.length,
      "nothing left pending",
    );
    const charged = new Map<Hex, number>();
    const nonces: number[] = [];
    for (const hash of transactions) {
      const [receipt, tx] = await Promise.all([h.chain.publicClient.getTransactionReceipt({ hash }), h.chain.publicClient.getTransaction({ hash })]);
      assert.equal(receipt.status, "success");
      nonces.push(tx.nonce);
      for (const e of parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" }))
        charged.set(e.args.subscriptionId, (charged.get(e.args.subscriptionId) ?? 0) + 1);
    }
    assert.deepEqual(
      nonces.sort((a, b) => a - b),
      Array.from({ length: transactions.length }, (_, i) => start + i),
      "consecutive nonces",
    );
    for (const s of subs) assert.equal(charged.get(s.id), 1, "each subscription charged exactly once");
    return { ...node.stats, transactions: transactions.length };
  }

  // The relayer's window, one transaction per charge (batching off), so the window is what is tested.
  const ALONE = { CHARGE_BATCH_MAX: "1" };

  it(`a burst of 40 charges: all CONFIRMING, never more than ${POOL_WINDOW} pending, so the pool refuses nothing; no nonce gap`, async () => {
    const stats = await burst(40, 16, ALONE);
    assert.equal(stats.refusedFull, 0, "the relayer kept within the pool's window");
    assert.equal(stats.accepted, 40);
    assert.isAtLeast(stats.blocks, 3, "40 charges take at least three blocks at 16 per block");
    // The bench's count of blocks by the transactions each carried covers every block and every charge.
    const byTransactions = [...stats.blocksByTransactions];
    assert.equal(
      byTransactions.reduce((sum, [, { blocks }]) => sum + blocks, 0),
      stats.blocks,
      "every block counted once",
    );
    assert.equal(
      byTransactions.reduce((sum, [txs, { blocks }]) => sum + txs * blocks, 0),
      40,
      "every charge's transaction counted in its block",
    );
    assert.isAtMost(Math.max(...byTransactions.map(([txs]) => txs)), 16, "no block above the pool's window");
  });

  it("a pool smaller than the relayer's window (8 slots): refused sends are retried in nonce order; no 502, no nonce gap", async () => {
    const stats = await burst(30, 8, ALONE);
    assert.isAbove(stats.refusedFull, 0, "the node refused some sends");
    assert.equal(stats.accepted, 30, "each transaction accepted once in the end");
  });

  it("a burst of 150 charges batched: a few chargeBatch transactions carry them all, each charged once, no refusal, no gap", async () => {
    const stats = await burst(150, 16);
    assert.isAtMost(stats.transactions, 12, "charges ready together share transactions (50 at most each)");
    assert.isAtLeast(stats.transactions, 3);
    assert.equal(stats.refusedFull, 0);
    assert.equal(stats.accepted, stats.transactions);
  });

  it(`a burst of 24 x402 settles (each its own transaction): all answered success once mined, the pool refuses nothing, merchant paid 24 times`, async () => {
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
    const bodies = [];
    for (let i = 0; i < 24; i++) {
      const created = await h.api.post("/v1/payments").send({ recipient: merchant, amount: "0.25" });
      const requirements = {
        scheme: "exact",
        network: "eip155:84532",
        amount: created.body.pay.amount_units,
        asset: h.service.deployment.token.address,
        payTo: created.body.pay.deposit_address,
        maxTimeoutSeconds: 60,
        extra: { name: "USDC", version: "2" },
      };
      // Payers of their own: an agent's settlements are not held one at a time (only contract payers').
      const payer = h.chain.accounts[LOCAL_ROLES.firstUser + 2 + (i % 8)]!;
      const client = new x402Client().register("eip155:84532", new ExactEvmClientScheme(toClientEvmSigner(payer, h.chain.publicClient)));
      const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [requirements] } as never);
      bodies.push({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    }
    const before = await balanceOf(h.chain, h.service.deployment.token.address, merchant);
    node = await startBaseNode(h.chain, { accountSlots: 16 });
    service = await createService(configFor(node.url, { RPC_TIMEOUT_MS: "10000" }), { logger: createLogger("silent"), database: h.database, now: h.clock.now });
    const api = supertest(service.app);
    const answers = await Promise.all(bodies.map((b) => api.post("/x402/settle").send(b)));
    assert.deepEqual([...new Set(answers.map((a) => a.body.success))], [true], JSON.stringify(answers.filter((a) => !a.body.success).map((a) => a.body)));
    assert.equal(new Set(answers.map((a) => a.body.transaction)).size, 24, "one settlement each");
    assert.equal(node.stats.refusedFull, 0, "the relayer kept within the pool's window");
    // Answered once in a block (the node's receipt): 24 settlements take at least two blocks at 16 per block.
    const receipts = await Promise.all(answers.map((a) => service!.client.getTransactionReceipt({ hash: a.body.transaction })));
    assert.isAtLeast(new Set(receipts.map((r) => r.blockNumber)).size, 2, "24 settlements take at least two blocks at 16 per block");
    // The last of those blocks sealed before the balances are read.
    const last = receipts.reduce((m, r) => (r.blockNumber > m ? r.blockNumber : m), 0n);
    while ((await h.chain.publicClient.getBlockNumber({ cacheTime: 0 })) < last) await node.mine();
    const after = await balanceOf(h.chain, h.service.deployment.token.address, merchant);
    assert.equal(after - before, 24n * 245_000n);
  });

  it("answers a sender's pending nonce from its pool and eth_feeHistory from its head, as a node does (the local chain would build a pending block for each)", async () => {
    const asked: Array<{ method: string; params?: unknown }> = [];
    const provider = {
      request: (args: { method: string; params?: unknown[] | object }) => {
        asked.push(args);
        return h.chain.direct.request(args);
      },
    };
    node = await startBaseNode({ ...h.chain, direct: provider }, { paused: true }); // no block of its own during the test
    const client = createPublicClient({ chain: h.chain.chain, transport: http(node.url) });
    const sender = h.chain.accounts[LOCAL_ROLES.firstUser + 5]!;
    const latest = await client.getTransactionCount({ address: sender.address });
    const fees = await client.estimateFeesPerGas();
    for (let nonce = latest; nonce < latest + 3; nonce++) {
      const raw = await sender.signTransaction({ chainId: h.chain.chain.id, type: "eip1559", nonce, to: relayer(), value: 1n, gas: 21_000n, ...fees });
      await client.sendRawTransaction({ serializedTransaction: raw });
    }
    const pending = await client.getTransactionCount({ address: sender.address, blockTag: "pending" });
    assert.equal(pending, latest + 3);
    assert.equal(pending, await h.chain.publicClient.getTransactionCount({ address: sender.address, blockTag: "pending" }), "the chain's own answer");
    assert.isFalse(
      asked.some((a) => a.method === "eth_getTransactionCount" && (a.params as unknown[])[1] === "pending"),
      "answered from the pool",
    );
    const history = () => client.getFeeHistory({ blockCount: 1, rewardPercentiles: [] });
    const first = await history();
    assert.deepEqual(first, await h.chain.publicClient.getFeeHistory({ blockCount: 1, rewardPercentiles: [] }), "the chain's own answer");
    assert.equal(asked.filter((a) => a.method === "eth_feeHistory").length, 0, "answered from the head and the base fee the node pinned");
    await h.chain.mine(1);
    assert.equal(await client.getTransactionCount({ address: sender.address, blockTag: "pending" }), latest + 3, "mined: the latest nonce holds them");
    const next = await history();
    assert.notEqual(next.oldestBlock, first.oldestBlock, "the next head's");
    assert.deepEqual(next, await h.chain.publicClient.getFeeHistory({ blockCount: 1, rewardPercentiles: [] }), "the chain's own answer");
    // A fee a caller pinned is the chain's to say: asked once for this head.
    await client.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: ["0x3b9aca00"] } as never);
    const pinned = await history();
    assert.equal(pinned.baseFeePerGas.at(-1), 1_000_000_000n);
    assert.deepEqual(await history(), pinned);
    assert.equal(asked.filter((a) => a.method === "eth_feeHistory").length, 1, "asked the chain once, for the head whose fee a caller pinned");
  });
});
