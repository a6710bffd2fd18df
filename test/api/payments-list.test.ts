import { assert } from "chai";
import type { Address, Hex } from "viem";
import { noReturnTokenAbi, splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { LIST_MAX_READS } from "../../src/payments/payments-list.js";
import { ListPaymentsResponse } from "../../src/wire/index.js";
import { useService } from "../helpers/service.js";
import { exchangeWithdrawals, payIntent, type PayBlock } from "../helpers/payments.js";
import { send } from "../helpers/tx.js";
import { deployTestContract } from "../helpers/deploy.js";
import { payThrough, SPLITTER_ENTRY_POINTS } from "../helpers/splitter-entry-points.js";
import { x402ReceiversAbi } from "../../src/generated/contracts.js";
import { tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import { erc20Abi, getAddress, parseEventLogs } from "viem";
import { balanceOf } from "../helpers/tx.js";

/** POST /v1/payments/list: the payments to a recipient, from the chain's logs, newest first, by bounded pages. */
describe("POST /v1/payments/list", function () {
  this.timeout(60_000);
  const h = useService();
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 7]!;
  const token = () => h.service.deployment.token.address;
  const withdraw = exchangeWithdrawals(() => h.chain, buyer, token, 940);
  /** The four eth_getLogs of one range. */
  const READ = 4;

  async function create(amount: string) {
    const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }
  async function list(body: Record<string, unknown>) {
    const res = await h.api.post("/v1/payments/list").send(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return ListPaymentsResponse.parse(res.body);
  }
  /** Every page from the latest block down, until next_before_block is null. */
  async function allPages(recipient: Address, limit?: number) {
    const pages = [];
    let before: string | null | undefined;
    do {
      const page = await list({ recipient, ...(before ? { before_block: before } : {}), ...(limit ? { limit } : {}) });
      pages.push(page);
      before = page.next_before_block;
    } while (before !== null && pages.length < 100);
    return pages;
  }

  it("lists a paid payment with every field, not final until the finality head passes it", async () => {
    const a = await create("12.5");
    const receipt = await payIntent(h.chain, buyer(), a.pay);
    const block = await h.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    const listed = {
      reference: a.reference,
      amount: "12.500000",
      amount_units: "12500000",
      fee_units: "250000",
      payer: buyer().address,
      tx_hash: receipt.transactionHash,
      block_number: receipt.blockNumber.toString(),
      timestamp: Number(block.timestamp),
      settled_by: "pay" as const,
    };
    const fresh = await list({ recipient: merchant().address });
    assert.deepEqual(fresh.payments, [{ ...listed, final: false }]);
    assert.equal(fresh.as_of_block, receipt.blockNumber.toString());
    await h.chain.mine(2);
    const settled = await list({ recipient: merchant().address.toLowerCase() });
    assert.deepEqual(settled.payments, [{ ...listed, final: true }]);
    assert.isNull(settled.next_before_block, "a chain shorter than a page: nothing older to read");
  });

  it("names a plain transfer's payment by the wallet that sent it (settled_by deposit), newest first beside a pay", async () => {
    const a = await create("3");
    const paid = await payIntent(h.chain, buyer(), a.pay);
    const b = await create("4");
    const { exchange } = await withdraw(b.pay.deposit_address, 4_000_000n);
    const settlement = await send(h.chain, stranger(), {
      address: b.pay.splitter,
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [b.pay.token, b.pay.recipient, 4_000_000n, b.pay.reference],
    });
    const page = await list({ recipient: merchant().address });
    assert.deepEqual(
      page.payments.map((p) => [p.tx_hash, p.reference, p.payer, p.settled_by, p.amount, p.fee_units]),
      [
        [settlement.transactionHash, b.reference, getAddress(exchange.address), "deposit", "4.000000", "80000"],
        [paid.transactionHash, a.reference, buyer().address, "pay", "3.000000", "60000"],
      ],
    );
  });

  it("books that balance: a 1.00 payment address paid 3.00 is listed at 3.000000, amount − fee is what the recipient received, and its payer is the buyer's wallet", async () => {
    const a = await create("1");
    const { exchange } = await withdraw(a.pay.deposit_address, 3_000_000n);
    const before = await balanceOf(h.chain, token(), merchant().address);
    const settlement = await send(h.chain, stranger(), {
      address: a.pay.splitter,
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [a.pay.token, a.pay.recipient, 1_000_000n, a.pay.reference],
    });
    const received = (await balanceOf(h.chain, token(), merchant().address)) - before;
    const [row] = (await list({ recipient: merchant().address })).payments;
    assert.deepInclude(row, {
      tx_hash: settlement.transactionHash,
      reference: a.reference,
      amount: "3.000000",
      amount_units: "3000000",
      fee_units: "60000",
      payer: getAddress(exchange.address),
      settled_by: "deposit",
    });
    assert.equal(BigInt(row!.amount_units) - BigInt(row!.fee_units), received);
  });

  it("lists a forwarded deposit (settled_by forward): a short deposit the recipient took, named by the wallet that sent it", async () => {
    const a = await create("5");
    const { exchange } = await withdraw(a.pay.deposit_address, 2_000_000n);
    const forward = await send(h.chain, merchant(), {
      address: a.pay.splitter,
      abi: splitterAbi,
      functionName: "forwardDeposit",
      args: [a.pay.token, a.pay.recipient, 5_000_000n, a.pay.reference, a.pay.token],
    });
    const [row] = (await list({ recipient: merchant().address })).payments;
    assert.deepInclude(row, {
      tx_hash: forward.transactionHash,
      reference: null,
      amount: "2.000000",
      fee_units: "40000",
      payer: getAddress(exchange.address),
      settled_by: "forward",
    });
  });

  it("a range of the list sums to the recipient's inflow through our contracts, unit for unit", async () => {
    const start = (await h.chain.publicClient.getBlockNumber()) + 1n;
    await payIntent(h.chain, buyer(), (await create("2.5")).pay); // pay
    const excess = await create("1"); // a payment address paid more than its amount
    await withdraw(excess.pay.deposit_address, 3_333_333n);
    await send(h.chain, stranger(), {
      address: excess.pay.splitter,
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [excess.pay.token, excess.pay.recipient, 1_000_000n, excess.pay.reference],
    });
    // A deposit after the payment settled, forwarded by anyone.
    await withdraw(excess.pay.deposit_address, 777_777n);
    await send(h.chain, stranger(), {
      address: excess.pay.splitter,
      abi: splitterAbi,
      functionName: "forwardDeposit",
      args: [excess.pay.token, excess.pay.recipient, 1_000_000n, excess.pay.reference, excess.pay.token],
    });
    const short = await create("9"); // a short deposit the recipient took
    await withdraw(short.pay.deposit_address, 1_234_567n);
    await send(h.chain, merchant(), {
      address: short.pay.splitter,
      abi: splitterAbi,
      functionName: "forwardDeposit",
      args: [short.pay.token, short.pay.recipient, 9_000_000n, short.pay.reference, short.pay.token],
    });
    // Not through our contracts: a plain transfer to the recipient is no payment of ours.
    await send(h.chain, buyer(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [merchant().address, 5_000_000n] });
    await h.chain.mine(2);

    const rows = (await allPages(merchant().address, 2)).flatMap((p) => p.payments).filter((p) => BigInt(p.block_number) >= start);
    assert.lengthOf(rows, 4);
    const listed = rows.reduce((sum, p) => sum + BigInt(p.amount_units) - BigInt(p.fee_units), 0n);
    const ours = [h.service.deployment.contracts.Splitter.address, h.service.deployment.contracts.X402Receivers.address];
    const transfers = parseEventLogs({
      abi: erc20Abi,
      eventName: "Transfer",
      logs: await h.chain.publicClient.getLogs({ address: token(), fromBlock: start, toBlock: "latest" }),
    }).filter((l) => getAddress(l.args.to) === getAddress(merchant().address));
    let inflow = 0n;
    for (const log of transfers) {
      const tx = await h.chain.publicClient.getTransaction({ hash: log.transactionHash });
      if (tx.to && ours.some((c) => getAddress(c) === getAddress(tx.to!))) inflow += log.args.value;
    }
    assert.equal(listed, inflow);
    assert.equal(inflow, 2_500_000n - 50_000n + 3_333_333n - 66_666n + 777_777n - 15_555n + 1_234_567n - 24_691n);
  });

  it("says how each was settled: every Splitter entry point (pay, deposit, x402 to a payment address) and an x402 receiver's settle", async () => {
    const parties = { chain: h.chain, splitter: h.service.deployment.contracts.Splitter.address, buyer: buyer(), submitter: stranger() };
    const expected: Array<[Hex, "pay" | "deposit" | "x402", Address]> = [];
    for (const [i, entry] of SPLITTER_ENTRY_POINTS.entries()) {
      const payment = {
        token: token(),
        recipient: merchant().address,
        amount: BigInt(1_000_000 + i),
        reference: `0x${(i + 1).toString(16).padStart(64, "0")}` as Hex,
      };
      const receipt = await payThrough(entry, parties, payment);
      const how = entry.name.startsWith("settleDepositFromAuthorization")
        ? ("x402" as const)
        : entry.name.startsWith("settleDeposit")
          ? ("deposit" as const)
          : ("pay" as const);
      // A payment address's payer is the wallet whose transfer made up the payment: the buyer here.
      expected.push([receipt.transactionHash, how, how === "deposit" ? buyer().address : await entry.payer(parties, payment)]);
    }
    // An x402 payment to the merchant's receiver: the agent's authorization, settled by X402Receivers.
    const receivers = h.service.deployment.contracts.X402Receivers.address;
    const receiver = await h.chain.publicClient.readContract({
      address: receivers,
      abi: x402ReceiversAbi,
      functionName: "receiverOf",
      args: [merchant().address, token()],
    });
    const nonce = `0x${"5a".repeat(32)}` as Hex;
    const authorization = { from: buyer().address, to: receiver, value: 2_000_000n, validAfter: 0n, validBefore: 2n ** 40n, nonce };
    const signature = await buyer().signTypedData(
      transferAuthorizationTypedData(tokenDomain(84532, token(), h.service.deployment.token.eip712), authorization) as never,
    );
    const settled = await send(h.chain, stranger(), {
      address: receivers,
      abi: x402ReceiversAbi,
      functionName: "settle",
      args: [token(), merchant().address, buyer().address, 2_000_000n, 0n, 2n ** 40n, nonce, signature],
    });
    expected.push([settled.transactionHash, "x402", buyer().address]);
    const page = await list({ recipient: merchant().address });
    assert.deepEqual(
      page.payments.map((p) => [p.tx_hash, p.settled_by, p.payer]),
      expected.reverse(),
    );
    assert.deepEqual(page.payments[0]!.reference, nonce, "an x402 receiver payment is named by its authorization's nonce");
    assert.deepEqual([page.payments[0]!.amount, page.payments[0]!.fee_units], ["2.000000", "40000"]);
  });

  it("leaves out a Paid in a token that is not the deployment's (anyone can emit one)", async () => {
    const a = await create("5");
    const griefer = stranger();
    const junk = await deployTestContract(h.chain, griefer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
    await send(h.chain, griefer, { address: junk, abi: noReturnTokenAbi, functionName: "mint", args: [griefer.address, 10n ** 12n] });
    await send(h.chain, griefer, { address: junk, abi: noReturnTokenAbi, functionName: "approve", args: [a.pay.splitter, 10n ** 12n] });
    await send(h.chain, griefer, { address: a.pay.splitter, abi: splitterAbi, functionName: "pay", args: [junk, merchant().address, 10n ** 12n, a.reference] });
    assert.deepEqual((await list({ recipient: merchant().address })).payments, []);
  });

  it("pages to older payments until next_before_block is null, each page a bounded block range", async () => {
    const paid: Hex[] = [];
    for (const amount of ["1", "2", "3"]) {
      const a = await create(amount);
      paid.push((await payIntent(h.chain, buyer(), a.pay)).transactionHash);
      await h.chain.mine(60_000); // more than a month of blocks would be at 2 s, between payments
    }
    h.proxy.reset();
    const pages = await allPages(merchant().address, 1);
    const requests = h.proxy.count("eth_getLogs");
    assert.deepEqual(
      pages.flatMap((p) => p.payments.map((x) => x.tx_hash)),
      [...paid].reverse(),
    );
    assert.equal(pages.length, 3, "a node without a range cap: each page reads as far back as its payment, whatever lies between");
    for (const page of pages) assert.equal(page.payments.length, 1);
    assert.equal(requests, 3 * READ, "one read a page: the whole chain below the page in one range");
    // The pages' dates join up: each starts where the next ends, the last at the deployment.
    for (const [i, page] of pages.entries()) {
      assert.isAtMost(page.from_timestamp, page.to_timestamp);
      if (i > 0) assert.isAtMost(page.to_timestamp, pages[i - 1]!.from_timestamp);
    }
    // A before_block above the chain reads from the latest block; the last page's is null.
    const above = await list({ recipient: merchant().address, before_block: "99999999999", limit: 1 });
    assert.deepEqual(above.payments, pages[0]!.payments);
    assert.isNull(pages.at(-1)!.next_before_block);
  });

  it("a reorged payment disappears from the list", async () => {
    const a = await create("7");
    const kept = await payIntent(h.chain, buyer(), a.pay);
    const before = await h.chain.snapshot();
    const b = await create("8");
    const reorged = await payIntent(h.chain, buyer(), b.pay);
    assert.deepEqual(
      (await list({ recipient: merchant().address })).payments.map((p) => p.tx_hash),
      [reorged.transactionHash, kept.transactionHash],
    );
    await h.chain.revert(before); // the blocks with the second payment are gone
    await h.chain.mine(3);
    const after = await list({ recipient: merchant().address });
    assert.deepEqual(
      after.payments.map((p) => [p.tx_hash, p.final]),
      [[kept.transactionHash, true]],
    );
  });

  it("a page at a provider's log-range cap ends where it stopped, and the next goes on from there", async () => {
    const a = await create("9");
    const old = await payIntent(h.chain, buyer(), a.pay);
    await h.chain.mine(20_000);
    const b = await create("10");
    const recent = await payIntent(h.chain, buyer(), b.pay);
    await h.chain.mine(3_000);
    // The provider refuses any log range wider than 1,000 blocks.
    const CAP = 1_000n;
    h.proxy.refuse = (r) => {
      if (r.method !== "eth_getLogs") return false;
      const [filter] = r.params as [{ fromBlock: Hex; toBlock: Hex }];
      return BigInt(filter.toBlock) - BigInt(filter.fromBlock) + 1n > CAP;
    };
    const pages = await allPages(merchant().address);
    assert.deepEqual(
      pages.flatMap((p) => p.payments.map((x) => x.tx_hash)),
      [recent.transactionHash, old.transactionHash],
    );
    assert.isAbove(pages.length, 2, "a capped page covers fewer blocks, and says where to go on");
    // Contiguous: every page starts where the last stopped, down to the first block, none skipped.
    let covered = BigInt(pages[0]!.as_of_block) + 1n;
    for (const page of pages.slice(0, -1)) {
      const next = BigInt(page.next_before_block!);
      assert.isBelow(Number(next), Number(covered));
      covered = next;
    }
    assert.isAtMost(h.proxy.count("eth_getLogs"), pages.length * READ * LIST_MAX_READS);
  });

  it("a node that answers no log read is an RPC error (RETRY), never an empty page", async () => {
    await payIntent(h.chain, buyer(), (await create("1")).pay);
    await h.chain.mine(20_000); // a page's reads halve the range without ever reaching a single block
    h.proxy.mode = "rpc-error";
    h.proxy.faultMethods = new Set(["eth_getLogs"]);
    const res = await h.api.post("/v1/payments/list").send({ recipient: merchant().address });
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.deepInclude(res.body, { error: "RPC_ERROR", action: "RETRY" });
    assert.isAtMost(h.proxy.count("eth_getLogs"), READ * LIST_MAX_READS);
  });

  it("a stranger's address with no payments: an empty list that ends", async () => {
    await payIntent(h.chain, buyer(), (await create("1")).pay);
    const page = await list({ recipient: stranger().address });
    assert.deepEqual(page.payments, []);
    assert.isNull(page.next_before_block);
  });

  it("refuses a malformed recipient, limit or before_block, and unknown fields", async () => {
    for (const body of [
      { recipient: "0x1234" },
      { recipient: merchant().address, limit: 0 },
      { recipient: merchant().address, limit: 101 },
      { recipient: merchant().address, before_block: "0" },
      { recipient: merchant().address, before_block: 12 },
      { recipient: merchant().address, from_block: "1" },
    ]) {
      const res = await h.api.post("/v1/payments/list").send(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error, "INVALID_REQUEST");
    }
  });
});

/** POST /v1/payments/list's fair share: callers told apart as the rate limiter tells them (TRUST_PROXY=1, X-Forwarded-For). */
describe("POST /v1/payments/list: one caller cannot hold it", function () {
  this.timeout(60_000);
  const LIMIT = 60;
  const h = useService({ TRUST_PROXY: "1", RECOVER_LIMIT_PER_MINUTE: String(LIMIT) });
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;

  it("a caller at its request limit on the payments list leaves another caller's page answered, ahead of the first caller's queue", async () => {
    h.proxy.latencyMs = 40; // every page takes a few round trips
    const finished: string[] = [];
    const ask = (ip: string) =>
      h.api
        .post("/v1/payments/list")
        .set("X-Forwarded-For", ip)
        .send({ recipient: merchant().address })
        .then((res) => {
          finished.push(`${ip} ${res.status}`);
          return res;
        });
    const crowd = Array.from({ length: LIMIT }, () => ask("203.0.113.7"));
    await new Promise((resolve) => setImmediate(resolve));
    const other = await ask("198.51.100.9");
    assert.equal(other.status, 200, JSON.stringify(other.body));
    ListPaymentsResponse.parse(other.body);
    const answeredBefore = finished.slice(0, finished.indexOf("198.51.100.9 200")).filter((f) => f.endsWith(" 200")).length;
    const crowdAnswers = await Promise.all(crowd);
    h.proxy.latencyMs = 0;
    assert.isAtMost(answeredBefore, 4, "it waited behind the pages running when it came, not behind the crowd's queue");
    assert.isAtLeast(crowdAnswers.filter((r) => r.status === 200).length, 2, "the crowd's own pages are answered too");
  });
});
