import { assert } from "chai";
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ApiError, PaymentServiceClient, fulfilOnce, isPaid, withRetry } from "../../client/src/index.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { listen } from "../../src/service.js";
import { useService } from "../helpers/service.js";
import { payIntent, type PayBlock } from "../helpers/payments.js";
import { signWithMetaMask } from "../helpers/signers.js";

describe("typed client (client/, the @stablecoin-payments/client package)", () => {
  const h = useService({ PORT: "0", OPS_PORT: "0" });
  let client: PaymentServiceClient;
  let close: () => Promise<void>;
  let apiUrl: string;
  beforeEach(async () => {
    const running = await listen(h.service);
    close = running.close;
    apiUrl = running.apiUrl;
    client = new PaymentServiceClient({ baseUrl: running.apiUrl });
  });
  afterEach(() => close());

  it("covers every hold call: create, resolve, authorize, state, capture, void, refund and list, with ApiError in the service's words", async () => {
    const buyer = h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const now = Math.floor(h.clock.now() / 1000);
    const hold = await client.createHold({ recipient: merchant.address, amount: "5.00", capture_before: now + 3600, refund_before: now + 7200 });
    const resolved = await client.resolveHold({ hold: hold.checkout_token, payer: buyer.address });
    const signature = signWithMetaMask(buyer, resolved.typed_data as never);
    /** Mines the call and what finality needs, then waits for the operator's follow round to let the hold's next call go. */
    const settled = async (sent: { tx_hash: string }) => {
      await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.tx_hash as `0x${string}` });
      await h.chain.mine(3);
      await h.service.holdOperator!.follow();
      return client.holdState({ hold: hold.hold });
    };
    assert.equal((await settled(await client.authorizeHold({ hold: hold.checkout_token, payer: buyer.address, signature }))).state, "AUTHORIZED");
    const above = await client.captureHold({ hold: hold.hold, amount: "5.01" }).catch((e: unknown) => e);
    assert.instanceOf(above, ApiError);
    assert.deepInclude(above as ApiError, { status: 400, error: "HOLD_AMOUNT_EXCEEDS_AUTHORIZED", action: "FIX_REQUEST" });
    assert.equal((await settled(await client.captureHold({ hold: hold.hold, amount: "2.00" }))).captured_units, "2000000");
    assert.equal((await settled(await client.voidHold({ hold: hold.hold }))).state, "VOIDED");
    const refund = await client.refundHold({ hold: hold.hold, amount: "1.00" });
    assert.equal(refund.status, "PREPARED");
    const listed = await client.listHolds({ recipient: merchant.address });
    assert.equal(listed.holds[0]?.hold_id, hold.hold_id);
  });

  it("creates, verifies and fulfils a payment once, end to end", async () => {
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
    const payment = await client.createPayment({ recipient: merchant, amount: "4.2" });
    assert.equal(payment.amount, "4.200000");
    const receipt = await payIntent(h.chain, h.chain.accounts[LOCAL_ROLES.firstUser]!, payment.pay as PayBlock);
    const pending = await client.verifyPayment({ intent: payment.intent, tx_hash: receipt.transactionHash });
    assert.isFalse(isPaid(pending, { reference: payment.reference }));
    await h.chain.mine(2);
    const verdict = await client.verifyPayment({ intent: payment.intent, tx_hash: receipt.transactionHash });
    assert.isTrue(isPaid(verdict, { reference: payment.reference }));
    assert.isFalse(isPaid(verdict, { reference: `0x${"00".repeat(32)}` }), "another order's reference");
    const ledger = new Set<string>();
    let shipped = 0;
    const key = `${payment.reference}:${receipt.transactionHash}`;
    assert.isTrue(await fulfilOnce(ledger, key, () => void shipped++));
    assert.isFalse(await fulfilOnce(ledger, key, () => void shipped++));
    assert.equal(shipped, 1);
  });

  it("listPayments pages by next_before_block; iteratePayments yields every payment, newest first, across pages", async () => {
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
    const hashes: string[] = [];
    for (const amount of ["1", "2", "3"]) {
      const payment = await client.createPayment({ recipient: merchant, amount });
      hashes.push((await payIntent(h.chain, h.chain.accounts[LOCAL_ROLES.firstUser]!, payment.pay as PayBlock)).transactionHash);
    }
    const first = await client.listPayments({ recipient: merchant, limit: 2 });
    assert.deepEqual(
      first.payments.map((p) => p.tx_hash),
      [hashes[2], hashes[1]],
    );
    assert.isString(first.next_before_block);
    const all: string[] = [];
    for await (const p of client.iteratePayments({ recipient: merchant, limit: 1 })) all.push(p.tx_hash);
    assert.deepEqual(all, [...hashes].reverse());
    let calls = 0;
    const counting = new PaymentServiceClient({
      baseUrl: apiUrl,
      fetch: (i, init) => {
        calls++;
        return fetch(i, init);
      },
    });
    for await (const _ of counting.iteratePayments({ recipient: merchant, limit: 1 })) break;
    assert.equal(calls, 1, "lazy: a break stops the paging");
  });

  it("throws ApiError with error, action and retryAfter; withRetry honours Retry-After for RETRY only", async () => {
    const refused = await client.resolvePayment({ intent: "not-a-token" }).then(
      () => assert.fail("expected an ApiError"),
      (error: unknown) => error,
    );
    assert.instanceOf(refused, ApiError);
    assert.include(refused, { status: 400, error: "INVALID_INTENT", action: "FIX_REQUEST", retryable: false });
    // INVALID_REQUEST carries the failing field and its rule (svc-error-detail) as `detail`.
    const badField = await client.verifyPayment({ intent: "x", tx_hash: "0x12" as `0x${string}` }).then(
      () => assert.fail("expected an ApiError"),
      (error: unknown) => error,
    );
    assert.instanceOf(badField, ApiError);
    assert.include(badField, { error: "INVALID_REQUEST", detail: "tx_hash: 0x and 64 hex digits" });
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
    const payment = await client.createPayment({ recipient: merchant, amount: "1" });
    h.proxy.mode = "http-500";
    const waits: number[] = [];
    let calls = 0;
    const answer = await withRetry(
      async () => {
        calls++;
        if (calls === 2) h.proxy.mode = "pass";
        return client.resolvePayment({ intent: payment.intent });
      },
      { sleep: async (ms) => void waits.push(ms) },
    );
    assert.equal(answer.reference, payment.reference);
    assert.equal(calls, 2);
    assert.deepEqual(waits, [5000], "RPC_ERROR says Retry-After: 5");
    let fixCalls = 0;
    const badRequest = async () => {
      fixCalls++;
      return client.resolvePayment({ intent: "bad" });
    };
    const fixRefusal = await withRetry(badRequest, { sleep: async () => {} }).then(
      () => assert.fail("a bad request must reject"),
      (error: unknown) => error,
    );
    assert.instanceOf(fixRefusal, ApiError, "withRetry hands the ApiError back");
    assert.include(fixRefusal, { error: "INVALID_INTENT", action: "FIX_REQUEST" });
    assert.equal(fixCalls, 1, "FIX_REQUEST is not retried");
  });
  it("the shop that opens client/README.md, run as printed: /buy sends the buyer to the checkout, /thanks verifies the hash return_url carries and ships once", async () => {
    const readme = readFileSync(new URL("../../client/README.md", import.meta.url), "utf8");
    const shop = /```js\n\/\/ shop\.mjs\n([\s\S]*?)```/.exec(readme)![1]!;
    const here = dirname(fileURLToPath(import.meta.url));
    // Only what a merchant fills in changes: where the service and the client package are, and the shop's port (any free one).
    const source = shop
      .replace('"@stablecoin-payments/client"', JSON.stringify(join(here, "../../client/src/index.ts")))
      .replace('"http://127.0.0.1:8787"', JSON.stringify(apiUrl))
      .replace("createServer((req, res)", "export const server = createServer((req, res)")
      .replace(".listen(3000, ", ".listen(0, ");
    const file = join(here, `.readme-shop-${process.pid}.ts`);
    writeFileSync(file, source);
    const logged: string[] = [];
    const log = console.log;
    console.log = (line: string) => void logged.push(line);
    let server: Server;
    try {
      server = ((await import(pathToFileURL(file).href)) as { server: Server }).server;
    } finally {
      unlinkSync(file);
    }
    try {
      await new Promise((resolve) => (server.listening ? resolve(null) : server.once("listening", resolve)));
      const shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const buy = await fetch(`${shopUrl}/buy`, { redirect: "manual" });
      assert.equal(buy.status, 303);
      const intent = /#\/pay\/(.+)$/.exec(buy.headers.get("location")!)![1]!;
      assert.match(buy.headers.get("location")!, /\/checkout\/#\/pay\/pi\./);
      const resolved = await client.resolvePayment({ intent });
      const receipt = await payIntent(h.chain, h.chain.accounts[LOCAL_ROLES.firstUser]!, resolved as unknown as PayBlock);
      await h.chain.mine(2);
      // The checkout's "Back to the merchant": return_url with tx_hash and reference added.
      const back = `${shopUrl}/thanks?order=42&tx_hash=${receipt.transactionHash}&reference=${resolved.reference}`;
      const thanks = await fetch(back);
      assert.equal(thanks.status, 200);
      assert.equal(await thanks.text(), "Paid. Thank you!");
      assert.equal((await fetch(back)).status, 200, "the buyer reloads");
      assert.deepEqual(
        logged.filter((l) => l.startsWith("ship")),
        ["ship order 42"],
        "shipped once",
      );
      const forged = await fetch(`${shopUrl}/thanks?order=42&tx_hash=0x${"11".repeat(32)}&reference=${resolved.reference}`);
      assert.equal(forged.status, 402, "a hash that did not pay is refused");
    } finally {
      console.log = log;
      server!.close();
    }
  });
});
