import { assert } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, parseAbi, type Hex, type PublicClient } from "viem";
import type { HDAccount } from "viem/accounts";
import { WebSocket } from "ws";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { BASE_TIME_ADDRESS, DENIM_BLOCK_GAS_LIMIT } from "../../dev/localchain/denim.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { until } from "../helpers/until.js";

const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

interface RpcBlock {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
  timestampMs?: Hex;
  gasLimit: Hex;
  transactions: unknown[];
}

/**
 * The local chain as Base serves it after Denim (dev/localchain/base-node.ts): a canonical block
 * every 200 ms with or without transactions, whole-second timestamps shared by several blocks, the
 * milliseconds in answers and at BaseTime, `pending` read as `latest`, 16 pending per sender,
 * WebSocket `newHeads` and `logs` (with `removed` on a reorg), eth_sendRawTransactionSync, and the
 * test hooks (pause, mine, drop, reorg). The clock's figures are measured over the node's own blocks
 * (their `timestampMs`), not by timing the test.
 */
describe("the local chain after Denim (a block every 200 ms)", function () {
  this.timeout(120_000);
  const local = useLocalChain({ sameSecondBlocks: true });
  let node: BaseNode | null = null;
  let client: PublicClient;
  const usdc = () => local.chain.deployment.token.address;
  const payer = () => local.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => local.chain.accounts[LOCAL_ROLES.firstUser + 2]!.address;

  async function start(options: Parameters<typeof startBaseNode>[1] = {}) {
    node = await startBaseNode(local.chain, { latencyMs: 0, ...options });
    client = createPublicClient({ chain: local.chain.chain, transport: http(node.url, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
    return node;
  }
  afterEach(async () => {
    await node?.close();
    node = null;
  });

  const rpc = <T>(method: string, params: unknown[]) => client.request({ method, params } as never) as Promise<T>;
  const block = (tag: bigint | "latest" | "pending") => rpc<RpcBlock>("eth_getBlockByNumber", [typeof tag === "bigint" ? `0x${tag.toString(16)}` : tag, false]);
  /** A signed USDC transfer to the merchant (not sent). */
  const signedTransfer = async (from: HDAccount, amount: bigint, nonce: number): Promise<Hex> => {
    const fees = await client.estimateFeesPerGas();
    return from.signTransaction({
      chainId: local.chain.chain.id,
      type: "eip1559",
      nonce,
      to: usdc(),
      gas: 100_000n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [merchant(), amount] }),
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
  };
  const transfer = (from: HDAccount, amount: bigint) =>
    createWalletClient({ account: from, chain: local.chain.chain, transport: http(node!.url, { retryCount: 0 }) }).sendTransaction({
      account: from,
      chain: local.chain.chain,
      to: usdc(),
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [merchant(), amount] }),
      gas: 100_000n,
    });

  it("mines a block every 200 ms of its clock with no transaction: never two closer (at most 26 in 5 s), most one tick apart, at least one in two ticks kept, never ahead of the wall clock, several sharing one whole-second timestamp, each with timestampMs", async () => {
    const wallStart = Date.now();
    await start();
    const first = await client.getBlockNumber();
    // 26 blocks: 5 s of Base's, read once the node has mined them (the deadline only stops a stalled clock).
    const count = 26n;
    await until(async () => (await client.getBlockNumber()) >= first + count, "26 blocks mined by the block clock", { timeoutMs: 60_000, everyMs: 200 });
    const wallSpan = Date.now() - wallStart;
    const blocks: RpcBlock[] = [];
    for (let n = first + 1n; n <= first + count; n++) blocks.push(await block(n));
    const ms = blocks.map((b) => Number(BigInt(b.timestampMs!)));
    for (const [i, b] of blocks.entries()) {
      assert.lengthOf(b.transactions, 0, "no transaction");
      assert.equal(BigInt(b.timestamp), BigInt(Math.floor(ms[i]! / 1000)), "timestamp is timestampMs' whole second");
    }
    // On the node's clock: a block is never closer than 200 ms to the one before; a tick the machine
    // was too busy to keep is skipped, never made up with blocks closer together.
    const gaps = ms.slice(1).map((m, i) => m - ms[i]!);
    for (const gap of gaps) assert.isAtLeast(gap, 200, `gaps ${gaps.join(", ")} ms`);
    const inFive = ms.filter((m) => m < ms[0]! + 5_000).length;
    assert.isAtMost(inFive, 26, `${inFive} blocks in 5 s`);
    const median = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]!;
    assert.isBelow(median, 400, `most blocks one 200 ms tick after the one before: gaps ${gaps.join(", ")} ms`);
    // The rate's two bounds on the node's own clock: its 25 gaps span no more than the wall time the
    // test watched (blocks are not minted ahead of time with timestamps spaced after the fact), and
    // no more than 50 ticks (at least one block in two ticks, however busy the machine).
    const span = ms.at(-1)! - ms[0]!;
    assert.isAtMost(span, wallSpan, `the node's clock ran ${span} ms over ${wallSpan} ms of wall time`);
    assert.isAtMost(span, 25 * 2 * 200, `25 blocks took ${span} ms of the node's clock: fewer than one in two ticks`);
    const perSecond = new Map<string, number>();
    for (const b of blocks) perSecond.set(b.timestamp, (perSecond.get(b.timestamp) ?? 0) + 1);
    assert.isAtLeast(Math.max(...perSecond.values()), 2, "several blocks share a timestamp");
    assert.isBelow(perSecond.size, blocks.length, "fewer distinct timestamps than blocks");
    assert.equal(BigInt(blocks[0]!.gasLimit), DENIM_BLOCK_GAS_LIMIT, "Denim's gas limit per block");
  });

  it("adds blockTimestampMs to transactions, receipts, their logs and eth_getLogs, and BaseTime's timestampMs() answers the block's milliseconds", async () => {
    await start({ paused: true });
    const hash = await transfer(payer(), 5n);
    const mined = await node!.mine();
    const b = await block(mined);
    assert.isString(b.timestampMs);
    const ms = b.timestampMs!;
    const receipt = await rpc<{ blockNumber: Hex; blockTimestampMs: Hex; logs: { blockTimestampMs: Hex }[] }>("eth_getTransactionReceipt", [hash]);
    assert.equal(BigInt(receipt.blockNumber), mined);
    assert.equal(receipt.blockTimestampMs, ms);
    assert.deepEqual(
      receipt.logs.map((l) => l.blockTimestampMs),
      [ms],
    );
    assert.equal((await rpc<{ blockTimestampMs: Hex }>("eth_getTransactionByHash", [hash])).blockTimestampMs, ms);
    const full = await rpc<{ transactions: { blockTimestampMs: Hex }[] }>("eth_getBlockByNumber", [b.number, true]);
    assert.deepEqual(
      full.transactions.map((t) => t.blockTimestampMs),
      [ms],
    );
    const logs = await rpc<{ blockTimestampMs: Hex }[]>("eth_getLogs", [{ address: usdc(), fromBlock: b.number, toBlock: b.number }]);
    assert.deepEqual(
      logs.map((l) => l.blockTimestampMs),
      [ms],
    );
    assert.equal((await rpc<RpcBlock>("eth_getBlockByHash", [b.hash, false])).timestampMs, ms);
    const onChain = await client.readContract({
      address: BASE_TIME_ADDRESS,
      abi: parseAbi(["function timestampMs() view returns (uint64)"]),
      functionName: "timestampMs",
      blockNumber: mined,
    });
    assert.equal(onChain, BigInt(ms), "BaseTime at that block");
  });

  it("answers pending as latest: the block, logs and calls are the latest block's; a sender's pending nonce counts its transactions in the pool", async () => {
    await start({ paused: true });
    const from = payer();
    const nonce = await client.getTransactionCount({ address: from.address });
    await client.sendRawTransaction({ serializedTransaction: await signedTransfer(from, 9n, nonce) });
    const [pending, latest] = await Promise.all([block("pending"), block("latest")]);
    assert.deepEqual(pending, latest, "no pending block");
    const balance = (blockTag: "latest" | "pending") =>
      client.readContract({ address: usdc(), abi: erc20Abi, functionName: "balanceOf", args: [merchant()], blockTag });
    assert.equal(await balance("pending"), await balance("latest"), "eth_call on pending reads the latest state");
    assert.deepEqual(
      await rpc("eth_getLogs", [{ address: usdc(), fromBlock: "pending", toBlock: "pending" }]),
      await rpc("eth_getLogs", [{ address: usdc(), fromBlock: "latest", toBlock: "latest" }]),
    );
    assert.equal(await client.getTransactionCount({ address: from.address, blockTag: "pending" }), nonce + 1, "the pool's nonce, as geth and reth answer it");
    await node!.mine();
    assert.equal(await balance("pending"), await balance("latest"));
  });

  it("refuses a sender's 17th pending transaction (account limit exceeded); the slot is free once a block takes them", async () => {
    await start({ paused: true });
    const from = payer();
    const nonce = await client.getTransactionCount({ address: from.address });
    for (let i = 0; i < 16; i++) await client.sendRawTransaction({ serializedTransaction: await signedTransfer(from, 1n, nonce + i) });
    const seventeenth = await signedTransfer(from, 1n, nonce + 16);
    const refused = await client.sendRawTransaction({ serializedTransaction: seventeenth }).then(
      () => null,
      (error: Error) => error,
    );
    assert.match(String(refused), /account limit exceeded/);
    assert.equal(node!.stats.refusedFull, 1);
    await node!.mine();
    assert.equal(await client.getTransactionCount({ address: from.address }), nonce + 16, "one block took all 16");
    await client.sendRawTransaction({ serializedTransaction: seventeenth });
    await node!.mine();
    assert.equal(await client.getTransactionCount({ address: from.address }), nonce + 17);
  });

  it("refuses a transaction whose gas limit is over 16,777,216 (EIP-7825), before its pool; its nonce stays free", async () => {
    await start({ paused: true });
    const from = payer();
    const nonce = await client.getTransactionCount({ address: from.address });
    const fees = await client.estimateFeesPerGas();
    const sign = (gas: bigint) =>
      from.signTransaction({
        chainId: local.chain.chain.id,
        type: "eip1559",
        nonce,
        to: usdc(),
        gas,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [merchant(), 1n] }),
        maxFeePerGas: fees.maxFeePerGas * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
    const refused = await client.sendRawTransaction({ serializedTransaction: await sign(16_777_217n) }).then(
      () => null,
      (error: Error) => error,
    );
    assert.match(String(refused), /transaction gas limit too high/);
    await client.sendRawTransaction({ serializedTransaction: await sign(16_777_216n) });
    await node!.mine();
    assert.equal(await client.getTransactionCount({ address: from.address }), nonce + 1, "at the cap: taken, with the same nonce");
  });

  it("answers eth_sendRawTransactionSync with the receipt once mined: not before, and with the first block mined after the pool took it; with no block within its timeout, error 4 (EIP-7966)", async () => {
    // Blocks by hand: the node's clock is the blocks it mines.
    await start({ paused: true });
    const from = payer();
    const nonce = await client.getTransactionCount({ address: from.address });
    let answered = false;
    const answer = rpc<{ status: Hex; blockNumber: Hex; blockTimestampMs: Hex }>("eth_sendRawTransactionSync", [await signedTransfer(from, 3n, nonce)]).finally(
      () => (answered = true),
    );
    // The pool took it once the sender's pending nonce counts it (a round trip per look).
    const deadline = Date.now() + 30_000;
    while ((await client.getTransactionCount({ address: from.address, blockTag: "pending" })) === nonce)
      assert.isBelow(Date.now(), deadline, "the pool takes the transaction");
    assert.isFalse(answered, "no answer before a block");
    const mined = await node!.mine();
    const receipt = await answer;
    assert.equal(receipt.status, "0x1");
    assert.equal(BigInt(receipt.blockNumber), mined, "the block mined after the pool took it");
    assert.equal(receipt.blockTimestampMs, (await block(mined)).timestampMs);

    // No block: the timeout elapses; error 4 with the hash (EIP-7966).
    const error = await rpc("eth_sendRawTransactionSync", [await signedTransfer(from, 3n, nonce + 1), 300]).then(
      () => null,
      (e: { code?: number; cause?: { code?: number } }) => e,
    );
    assert.equal(error?.cause?.code ?? error?.code, 4, String(error));
  });

  it("streams newHeads and logs over WebSocket on the same port; a reorg sends the retracted logs again with removed: true", async () => {
    await start({ paused: true, reorgDepth: 3 });
    const socket = new WebSocket(node!.wsUrl);
    const messages: { subscription: string; result: Record<string, unknown> }[] = [];
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
      await until(() => answers.has(id), `the answer to ${method}`);
      return answers.get(id);
    };
    const of = (id: string) => messages.filter((m) => m.subscription === id).map((m) => m.result);
    const delivered = (done: () => boolean) => until(done, "the notifications delivered", { timeoutMs: 30_000, everyMs: 10 });
    try {
      const heads = (await call(1, "eth_subscribe", ["newHeads"])) as string;
      const logs = (await call(2, "eth_subscribe", ["logs", { address: usdc(), topics: [TRANSFER_TOPIC] }])) as string;
      const elsewhere = (await call(3, "eth_subscribe", ["logs", { address: merchant() }])) as string;
      assert.equal(await call(4, "eth_chainId", []), "0x14a34", "plain JSON-RPC over the socket");

      const hash = await transfer(payer(), 7n);
      const mined = await node!.mine();
      await node!.mine(2);
      await delivered(() => of(heads).length === 3 && of(logs).length === 1);
      assert.deepEqual(
        of(heads).map((h) => BigInt(h.number as Hex)),
        [mined, mined + 1n, mined + 2n],
      );
      for (const h of of(heads)) assert.isString(h.timestampMs);
      const [log] = of(logs);
      assert.include(log, { transactionHash: hash, blockHash: of(heads)[0]!.hash, blockTimestampMs: of(heads)[0]!.timestampMs, removed: false });
      assert.deepEqual(of(elsewhere), [], "a filter that matches nothing streams nothing");

      // The latest three blocks retracted: the log comes again, removed; the chain goes on from the block before.
      assert.equal(await node!.reorg(3), mined - 1n);
      await delivered(() => of(logs).length === 2);
      assert.include(of(logs)[1], { transactionHash: hash, removed: true });
      assert.equal(await client.getBlockNumber(), mined - 1n);
      assert.isNull(await rpc("eth_getBlockByHash", [of(heads)[0]!.hash, false]), "the retracted block is gone");
      // Followed: the transaction went back to the pool and the next block holds it, under another hash.
      const next = await node!.mine();
      await delivered(() => of(heads).length === 4 && of(logs).length === 3);
      assert.equal(next, mined);
      assert.notEqual(of(heads)[3]!.hash, of(heads)[0]!.hash);
      assert.include(of(logs)[2], { transactionHash: hash, blockHash: of(heads)[3]!.hash, removed: false });
      assert.equal((await client.getTransactionReceipt({ hash })).blockHash, of(heads)[3]!.hash);

      assert.isTrue(await call(5, "eth_unsubscribe", [logs]));
      assert.isFalse(await call(6, "eth_unsubscribe", [logs]));
    } finally {
      socket.close();
    }
  });

  it("test hooks: a paused clock holds transactions in the pool, drop() removes one for good, mine(n) mines n blocks at least 200 ms apart on the node's clock", async () => {
    const pausedAt = Date.now();
    await start({ paused: true });
    const head = await client.getBlockNumber();
    const from = payer();
    const nonce = await client.getTransactionCount({ address: from.address });
    const hash = await client.sendRawTransaction({ serializedTransaction: await signedTransfer(from, 1n, nonce) });
    // Three ticks of the block clock pass paused, a transaction waiting; the chain's own record then
    // says whether a block came in them: the first block mine() makes is the head's next.
    await until(() => Date.now() >= pausedAt + 600, "three ticks of the paused clock");
    await node!.drop(hash);
    const last = await node!.mine(5);
    assert.equal(last, head + 5n, "no block while paused");
    assert.isNull(await rpc("eth_getTransactionReceipt", [hash]), "dropped: never mined");
    assert.equal(await client.getTransactionCount({ address: from.address, blockTag: "pending" }), nonce, "its nonce is free");
    const ms = await Promise.all([1n, 2n, 3n, 4n, 5n].map(async (i) => Number(BigInt((await block(head + i)).timestampMs!))));
    // 200 ms apart, or more where the machine took longer than that to mine a block: never closer.
    const gaps = ms.slice(1).map((m, i) => m - ms[i]!);
    for (const gap of gaps) assert.isAtLeast(gap, 200, `gaps ${gaps.join(", ")} ms`);
    node!.resume();
    await until(async () => (await client.getBlockNumber()) > last, "the clock mines again once resumed", { timeoutMs: 10_000, everyMs: 50 });
  });

  it("a revert (evm_revert) takes the node's clock back with the chain: time moved forward or blocks mined far ahead do not leave it ahead", async () => {
    await start({ paused: true });
    const id = await local.chain.snapshot();
    await local.chain.advanceTime(3600); // an hour later, as a test of periods does
    await node!.mine(100); // and 20 s of blocks in a moment
    assert.isTrue((await client.getBlock()).timestamp > BigInt(Math.floor(Date.now() / 1000)) + 3600n, "ahead");
    await local.chain.revert(id);
    const after = await block(await node!.mine());
    assert.isTrue(BigInt(after.timestamp) <= BigInt(Math.floor(Date.now() / 1000)) + 1n, "on the wall clock again");
  });

  it("the clock-pinning test helper is not confused by several blocks with one timestamp (the chain stays on the wall clock)", async () => {
    await start({ paused: true });
    await node!.mine(10); // two seconds of blocks, several per timestamp
    await node!.close();
    node = null;
    const head = await local.chain.publicClient.getBlock();
    const wall = BigInt(Math.floor(Date.now() / 1000));
    assert.isTrue(head.timestamp <= wall + 3n, "the node's blocks stay near the wall clock");
    await local.chain.mine(1); // automining again, its timestamp from the wall clock, not pushed a second per block
    const after = await local.chain.publicClient.getBlock();
    assert.isTrue(after.timestamp >= head.timestamp);
    assert.isTrue(after.timestamp <= BigInt(Math.floor(Date.now() / 1000)) + 3n, "not pushed a second per block");
  });
});

/** `npm run chain` as a process: Base after Denim by default; BLOCK_INTERVAL_MS=0 a block per transaction. */
describe("npm run chain (BLOCK_INTERVAL_MS)", function () {
  this.timeout(120_000);
  let child: ChildProcess | null = null;
  afterEach(() => {
    if (child?.pid) process.kill(-child.pid, "SIGTERM");
    child = null;
  });

  let url = "";
  async function chainProcess(env: Record<string, string>): Promise<PublicClient> {
    child = spawn("node_modules/.bin/tsx", ["scripts/chain.ts"], {
      env: { ...process.env, CHAIN_PORT: "0", ...env },
      stdio: ["ignore", "pipe", "inherit"],
      detached: true,
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child!.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /local chain \d+ at (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child!.once("exit", (code) => reject(new Error(`chain exited ${code}: ${out}`)));
    });
    return createPublicClient({ transport: http(url, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
  }

  it("mines a block every 200 ms with no transaction by default, with timestampMs", async () => {
    const client = await chainProcess({});
    const first = await client.getBlockNumber();
    // Three blocks with no transaction (the deadline only stops a stalled clock), 200 ms or more apart on its clock.
    await until(async () => (await client.getBlockNumber()) >= first + 3n, "three blocks with no transaction", { timeoutMs: 30_000, everyMs: 200 });
    const blocks = await Promise.all(
      [1n, 2n, 3n].map(
        (i) => client.request({ method: "eth_getBlockByNumber", params: [`0x${(first + i).toString(16)}`, false] } as never) as Promise<RpcBlock>,
      ),
    );
    const ms = blocks.map((b) => Number(BigInt(b.timestampMs!)));
    for (const [i, b] of blocks.entries()) {
      assert.lengthOf(b.transactions, 0);
      assert.equal(BigInt(b.timestamp), BigInt(Math.floor(ms[i]! / 1000)));
      if (i > 0) assert.isAtLeast(ms[i]! - ms[i - 1]!, 200);
    }
  });

  it("BLOCK_INTERVAL_MS=0 mines a block per transaction and none without", async () => {
    const client = await chainProcess({ BLOCK_INTERVAL_MS: "0" });
    const first = await client.getBlockNumber();
    const sender = (await import("../../dev/localchain/harness.js")).localAccount(LOCAL_ROLES.firstUser + 7);
    const wallet = createWalletClient({ account: sender, transport: http(url, { retryCount: 0 }) });
    const chainId = await client.getChainId();
    for (let i = 0; i < 2; i++) {
      const hash = await wallet.sendTransaction({ account: sender, chain: null, to: sender.address, value: 1n, chainId } as never);
      const receipt = await client.getTransactionReceipt({ hash });
      assert.equal(receipt.blockNumber, first + BigInt(i + 1), "its own block");
      // Three ticks of a 200 ms clock pass before the next transaction: the chain's own record says whether it mined in them.
      const sent = Date.now();
      if (i === 0) await until(() => Date.now() >= sent + 600, "three ticks of a block clock");
    }
    assert.equal(await client.getBlockNumber(), first + 2n, "no block without a transaction");
  });
});
