import { assert } from "chai";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  http,
  parseEventLogs,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from "viem";
import type { HDAccount } from "viem/accounts";
import { WebSocket } from "ws";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useLocalChain } from "../helpers/local-chain.js";

/**
 * The local chain as Base's Flashblocks-aware endpoints serve it (dev/localchain/flashblocks.ts
 * behind dev/localchain/base-node.ts): preconfirmed receipts naming the block they will be sealed in,
 * the `pending` tag, eth_sendRawTransactionSync, the WebSocket subscriptions, a sealed block that is
 * exactly what was preconfirmed, and the two test hooks (a Flashblock reorg, preconfirmations off).
 * Most tests drive the node by hand (`manual`: `flashblock()`, `seal()`), so nothing depends on timing.
 */
describe("the local chain with Flashblocks (a node like Base's preconf endpoints)", function () {
  this.timeout(120_000);
  const local = useLocalChain();
  let node: BaseNode | null = null;
  let client: PublicClient;
  const usdc = () => local.chain.deployment.token.address;
  const payer = () => local.chain.accounts[LOCAL_ROLES.firstUser]!;
  const other = () => local.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const merchant = () => local.chain.accounts[LOCAL_ROLES.firstUser + 2]!.address;

  async function start(options: Parameters<typeof startBaseNode>[1] = {}) {
    node = await startBaseNode(local.chain, { latencyMs: 0, manual: true, ...options });
    client = createPublicClient({ chain: local.chain.chain, transport: http(node.url, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
    return node;
  }
  afterEach(async () => {
    await node?.close();
    node = null;
  });

  const wallet = (account: HDAccount): WalletClient => createWalletClient({ account, chain: local.chain.chain, transport: http(node!.url, { retryCount: 0 }) });
  /** Sends `amount` USDC units from `from` to the merchant through the node; the hash. */
  const transfer = (from: HDAccount, amount: bigint, nonce?: number, tipWei?: bigint): Promise<Hex> =>
    wallet(from).sendTransaction({
      account: from,
      chain: local.chain.chain,
      to: usdc(),
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [merchant(), amount] }),
      gas: 100_000n,
      ...(nonce === undefined ? {} : { nonce }),
      ...(tipWei === undefined ? {} : { maxPriorityFeePerGas: tipWei, maxFeePerGas: 10n ** 9n + tipWei }),
    });
  const rpc = (method: string, params: unknown[]) => client.request({ method, params } as never) as Promise<unknown>;
  const balance = (account: Address, blockTag: "latest" | "pending") =>
    client.readContract({ address: usdc(), abi: erc20Abi, functionName: "balanceOf", args: [account], blockTag });

  it("serves a preconfirmed transaction's receipt and transaction with the number of the block it will be sealed in, before that block exists", async () => {
    await start();
    const latest = await client.getBlockNumber();
    const hash = await transfer(payer(), 1_000_000n);
    assert.isNull(await rpc("eth_getTransactionReceipt", [hash]), "not preconfirmed before a Flashblock");
    await node!.flashblock();
    const receipt = await client.getTransactionReceipt({ hash });
    assert.equal(receipt.blockNumber, latest + 1n);
    assert.equal(await client.getBlockNumber(), latest, "the block it names is not sealed yet");
    assert.equal(receipt.status, "success");
    const [log] = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" });
    assert.include(log!.args, { from: payer().address, to: merchant(), value: 1_000_000n });
    const tx = await client.getTransaction({ hash });
    assert.equal(tx.blockNumber, latest + 1n);
    assert.equal(tx.transactionIndex, receipt.transactionIndex);

    const sealed = await node!.seal();
    assert.equal(sealed, latest + 1n);
    const final = await client.getTransactionReceipt({ hash });
    assert.equal(final.blockNumber, sealed);
    assert.equal(final.blockHash, (await client.getBlock({ blockNumber: sealed })).hash);
    assert.deepEqual(
      { gasUsed: final.gasUsed, index: final.transactionIndex, logs: final.logs.map((l) => [l.logIndex, l.data, l.topics]) },
      { gasUsed: receipt.gasUsed, index: receipt.transactionIndex, logs: receipt.logs.map((l) => [l.logIndex, l.data, l.topics]) },
      "the sealed receipt is the preconfirmed one",
    );
  });

  it("answers the pending tag with the preconfirmed state: eth_getBlockByNumber, eth_getLogs, eth_call, eth_getBalance, eth_getTransactionCount, eth_estimateGas", async () => {
    await start();
    const latest = await client.getBlockNumber();
    const from = other();
    const held = await balance(from.address, "latest");
    // Everything `from` holds goes to the merchant: only the pending state knows it is gone.
    const hash = await transfer(from, held);
    const ethBefore = await client.getBalance({ address: from.address });
    await node!.flashblock();

    const pendingBlock = await client.getBlock({ blockTag: "pending" });
    assert.equal(pendingBlock.number, latest + 1n);
    assert.include(pendingBlock.transactions, hash);
    assert.notInclude((await client.getBlock({ blockTag: "latest" })).transactions, hash);

    const filter = { address: usdc(), event: erc20Abi.find((e) => e.type === "event" && e.name === "Transfer")!, args: { from: from.address } } as const;
    const pendingLogs = await client.getLogs({ ...filter, fromBlock: latest, toBlock: "pending" });
    assert.deepEqual(
      pendingLogs.map((l) => [l.transactionHash, l.blockNumber]),
      [[hash, latest + 1n]],
    );
    assert.deepEqual(await client.getLogs({ ...filter, fromBlock: latest, toBlock: "latest" }), []);
    assert.lengthOf(await client.getLogs({ ...filter, fromBlock: "pending", toBlock: "pending" }), 1);

    assert.equal(await balance(from.address, "pending"), 0n);
    assert.equal(await balance(from.address, "latest"), held);
    assert.isTrue((await client.getBalance({ address: from.address, blockTag: "pending" })) < ethBefore, "gas paid in the pending state");
    assert.equal(await client.getBalance({ address: from.address, blockTag: "latest" }), ethBefore);
    const nonce = await client.getTransactionCount({ address: from.address, blockTag: "latest" });
    assert.equal(await client.getTransactionCount({ address: from.address, blockTag: "pending" }), nonce + 1);

    // Sending one unit more than the pending balance fails to estimate at pending, not at latest.
    const spend = { account: from.address, to: usdc(), data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [merchant(), 1n] }) };
    assert.isTrue((await client.estimateGas({ ...spend, blockTag: "latest" } as never)) > 0n);
    let refused = false;
    try {
      await client.estimateGas({ ...spend, blockTag: "pending" } as never);
    } catch {
      refused = true;
    }
    assert.isTrue(refused, "the pending state has no USDC left to send");
  });

  it("answers eth_sendRawTransactionSync with the preconfirmed receipt (EIP-7966), within a Flashblock on the node's clocks", async () => {
    await start({ manual: false }); // 2 s blocks, a Flashblock every 200 ms
    const from = payer();
    const request = await wallet(from).prepareTransactionRequest({
      account: from,
      chain: local.chain.chain,
      to: usdc(),
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [merchant(), 5n] }),
      gas: 100_000n,
    });
    const raw = await from.signTransaction(request as never);
    const head = await client.getBlockNumber();
    const started = Date.now();
    const receipt = (await rpc("eth_sendRawTransactionSync", [raw])) as { blockNumber: Hex; status: Hex; transactionHash: Hex };
    const elapsed = Date.now() - started;
    assert.equal(receipt.status, "0x1");
    assert.isBelow(elapsed, 1000, "a Flashblock, not a block");
    assert.oneOf(BigInt(receipt.blockNumber) - head, [1n, 2n], "the block being built (or the next, across a seal)");

    // A timeout elapsed without a receipt: error 4 with the hash (preconfirmations off, no block clock).
    await node!.close();
    node = await start({ manual: true });
    const raw2 = await from.signTransaction((await wallet(from).prepareTransactionRequest({ ...request, nonce: undefined } as never)) as never);
    try {
      await rpc("eth_sendRawTransactionSync", [raw2, 300]);
      assert.fail("answered without a Flashblock");
    } catch (error) {
      const cause = error as { code?: number; cause?: { code?: number; data?: unknown } };
      assert.equal(cause.cause?.code ?? cause.code, 4, String(error));
    }
  });

  it("streams newFlashblocks, newFlashblockTransactions and pendingLogs over WebSocket on the same port, and newHeads and logs at the seal", async () => {
    await start();
    const socket = new WebSocket(node!.wsUrl);
    const messages: { subscription: string; result: Record<string, unknown> | string }[] = [];
    const answers = new Map<number, unknown>();
    await new Promise<void>((resolve, reject) => {
      socket.on("error", reject);
      socket.on("open", resolve);
    });
    socket.on("message", (data) => {
      const body = JSON.parse(String(data));
      if (body.method === "eth_subscription") messages.push(body.params);
      else answers.set(body.id, body.result);
    });
    const call = async (id: number, method: string, params: unknown[]) => {
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      while (!answers.has(id)) await new Promise((resolve) => setTimeout(resolve, 5));
      return answers.get(id);
    };
    try {
      const transferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
      const flashblocks = (await call(1, "eth_subscribe", ["newFlashblocks"])) as string;
      const logs = (await call(2, "eth_subscribe", ["pendingLogs", { address: usdc(), topics: [transferTopic] }])) as string;
      const elsewhere = (await call(3, "eth_subscribe", ["pendingLogs", { address: merchant() }])) as string;
      const txs = (await call(4, "eth_subscribe", ["newFlashblockTransactions"])) as string;
      const heads = (await call(5, "eth_subscribe", ["newHeads"])) as string;
      const sealedLogs = (await call(9, "eth_subscribe", ["logs", { address: usdc(), topics: [transferTopic] }])) as string;
      assert.equal(await call(6, "eth_chainId", []), "0x14a34", "plain JSON-RPC over the socket");
      const latest = await client.getBlockNumber();

      const hash = await transfer(payer(), 7n);
      await node!.flashblock();
      await node!.seal();
      const deadline = Date.now() + 5_000;
      while (!messages.some((m) => m.subscription === heads) || !messages.some((m) => m.subscription === sealedLogs)) {
        assert.isBelow(Date.now(), deadline, "newHeads within 5 s");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const of = (id: string) => messages.filter((m) => m.subscription === id).map((m) => m.result);
      const [block] = of(flashblocks) as { number: Hex; transactions: { hash: Hex }[] }[];
      assert.equal(BigInt(block!.number), latest + 1n);
      assert.deepEqual(
        block!.transactions.map((t) => t.hash),
        [hash],
      );
      const [log] = of(logs) as { transactionHash: Hex; blockNumber: Hex; topics: Hex[] }[];
      assert.equal(log!.transactionHash, hash);
      assert.equal(BigInt(log!.blockNumber), latest + 1n);
      assert.deepEqual(of(elsewhere), [], "a filter that matches nothing streams nothing");
      assert.deepEqual(of(txs), [hash]);
      assert.equal(BigInt((of(heads)[0] as { number: Hex }).number), latest + 1n);
      const sealedLog = of(sealedLogs) as { transactionHash: Hex; blockHash: Hex }[];
      assert.deepEqual(
        sealedLog.map((l) => [l.transactionHash, l.blockHash]),
        [[hash, (of(heads)[0] as { hash: Hex }).hash]],
        "the standard logs subscription: sealed logs, with the sealed block's hash",
      );
      assert.isTrue(await call(7, "eth_unsubscribe", [logs]));
      assert.isFalse(await call(8, "eth_unsubscribe", [logs]));
    } finally {
      socket.close();
    }
  });

  it("seals exactly what was preconfirmed, in the order it was preconfirmed (later and better-paying transactions go after)", async () => {
    await start();
    const latest = await client.getBlockNumber();
    const senders = [payer(), other(), local.chain.accounts[LOCAL_ROLES.firstUser + 3]!];
    const first: Hex[] = [];
    for (const s of senders) first.push(await transfer(s, 11n, undefined, 1n));
    await node!.flashblock();
    // Each pays a higher tip than anything before it: a fee-ordered pool would put them first.
    const second: Hex[] = [];
    for (const [i, s] of [...senders].reverse().entries()) second.push(await transfer(s, 13n, undefined, 1_000_000n * BigInt(i + 1)));
    await node!.flashblock();
    const preconfirmed = [];
    for (const hash of [...first, ...second]) preconfirmed.push(await client.getTransactionReceipt({ hash }));
    assert.deepEqual(
      preconfirmed.map((r) => r.transactionIndex),
      [0, 1, 2, 3, 4, 5],
      "preconfirmed in arrival order",
    );
    assert.isTrue(preconfirmed.every((r) => r.blockNumber === latest + 1n));

    await node!.seal();
    const block = await client.getBlock({ blockNumber: latest + 1n });
    assert.deepEqual(block.transactions, [...first, ...second]);
    for (const before of preconfirmed) {
      const after = await client.getTransactionReceipt({ hash: before.transactionHash });
      assert.deepEqual(
        [after.transactionIndex, after.gasUsed, after.cumulativeGasUsed, after.logs.map((l) => [l.logIndex, l.data])],
        [before.transactionIndex, before.gasUsed, before.cumulativeGasUsed, before.logs.map((l) => [l.logIndex, l.data])],
      );
    }
  });

  it("drops a preconfirmed transaction from the sealed block on request (a Flashblock reorg): its receipt goes, its nonce is free again", async () => {
    await start();
    const latest = await client.getBlockNumber();
    const kept = await transfer(payer(), 3n);
    const dropped = await transfer(other(), 4n);
    await node!.flashblock();
    assert.equal((await client.getTransactionReceipt({ hash: dropped })).blockNumber, latest + 1n, "preconfirmed first");
    const nonce = await client.getTransactionCount({ address: other().address, blockTag: "latest" });

    node!.dropFromSeal(dropped);
    await node!.seal();
    assert.deepEqual((await client.getBlock({ blockNumber: latest + 1n })).transactions, [kept]);
    assert.isNull(await rpc("eth_getTransactionReceipt", [dropped]));
    assert.isNull(await rpc("eth_getTransactionByHash", [dropped]));
    assert.equal(await client.getTransactionCount({ address: other().address, blockTag: "pending" }), nonce);
    // Later blocks do not bring it back.
    await node!.flashblock();
    await node!.seal();
    assert.isNull(await rpc("eth_getTransactionReceipt", [dropped]));
    // The sender can use the nonce again.
    const again = await transfer(other(), 5n, nonce);
    await node!.flashblock();
    assert.equal((await client.getTransactionReceipt({ hash: again })).status, "success");
  });

  it("turns preconfirmations off mid-run (Base's fallback): receipts only with the sealed block, and on again", async () => {
    await start();
    const latest = await client.getBlockNumber();
    const before = await transfer(payer(), 1n);
    await node!.flashblock();
    assert.isNotNull(await rpc("eth_getTransactionReceipt", [before]));

    await node!.setPreconfirmations(false);
    assert.isFalse(node!.preconfirmations);
    const during = await transfer(other(), 1n);
    await node!.flashblock();
    assert.isNull(await rpc("eth_getTransactionReceipt", [during]), "nothing preconfirmed while off");
    assert.isNull(await rpc("eth_getTransactionReceipt", [before]), "what was preconfirmed waits for its block too");
    await node!.seal();
    assert.equal((await client.getTransactionReceipt({ hash: during })).blockNumber, latest + 1n, "every transaction still sealed");
    assert.equal((await client.getTransactionReceipt({ hash: before })).blockNumber, latest + 1n);

    await node!.setPreconfirmations(true);
    const after = await transfer(other(), 1n);
    await node!.flashblock();
    assert.equal((await client.getTransactionReceipt({ hash: after })).blockNumber, latest + 2n);
  });

  it("takes a test's time travel and mining through the node: the next sealed block carries the time moved, hardhat_mine seals the pool first", async () => {
    await start();
    const test = createTestClient({ chain: local.chain.chain, mode: "hardhat", transport: http(node!.url, { retryCount: 0 }) });
    const head = await client.getBlock({ blockTag: "latest" });
    const hash = await transfer(payer(), 2n);
    await node!.flashblock();
    await test.increaseTime({ seconds: 3600 });
    await test.mine({ blocks: 3 });
    assert.equal(await client.getBlockNumber(), head.number + 3n);
    const sealed = await client.getBlock({ blockNumber: head.number + 1n });
    assert.deepEqual(sealed.transactions, [hash], "the pool sealed in the first block");
    assert.isAtLeast(Number(sealed.timestamp - head.timestamp), 3600);
    assert.equal((await client.getTransactionReceipt({ hash })).blockNumber, head.number + 1n);
    // Blocks keep a 2 s step after it.
    await node!.seal();
    const after = await client.getBlock({ blockTag: "latest" });
    const before = await client.getBlock({ blockNumber: after.number - 1n });
    assert.equal(after.timestamp - before.timestamp, 2n);
  });

  it("on its clocks (2 s blocks, a Flashblock every 200 ms): a receipt within 600 ms of the broadcast while the block it names is not sealed", async () => {
    await start({ manual: false });
    const from = payer();
    const samples: number[] = [];
    let ahead = 0;
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const hash = await transfer(from, 1n);
      let receipt: { blockNumber: Hex } | null = null;
      let head = 0n;
      while (!receipt) {
        head = await client.getBlockNumber();
        receipt = (await rpc("eth_getTransactionReceipt", [hash])) as { blockNumber: Hex } | null;
        if (!receipt) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      samples.push(Date.now() - started);
      if (BigInt(receipt.blockNumber) > head) ahead++;
    }
    samples.sort((a, b) => a - b);
    assert.isBelow(samples[2]!, 600, `median ${samples[2]} ms (${samples.join(", ")})`);
    // A transaction broadcast in a block's last Flashblock is preconfirmed by the seal itself: rare.
    assert.isAtLeast(ahead, 3, "receipts served while the latest sealed block is below the block they name");
    const a = await client.getBlockNumber();
    await new Promise((resolve) => setTimeout(resolve, 4_100));
    const b = await client.getBlockNumber();
    assert.oneOf(Number(b - a), [2, 3], "a block every 2 s");
  });
});
