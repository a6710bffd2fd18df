import { assert } from "chai";
import { ApiError, PaymentServiceClient, fulfilOnce, isPaid, withRetry } from "../../client/src/index.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { listen } from "../../src/service.js";
import { useService } from "../helpers/service.js";
import { payIntent, type PayBlock } from "../helpers/payments.js";

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

  it("listPayments pages by next_before_block; allPayments yields every payment, newest first, across pages", async () => {
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
    for await (const p of client.allPayments({ recipient: merchant, limit: 1 })) all.push(p.tx_hash);
    assert.deepEqual(all, [...hashes].reverse());
    let calls = 0;
    const counting = new PaymentServiceClient({
      baseUrl: apiUrl,
      fetch: (i, init) => {
        calls++;
        return fetch(i, init);
      },
    });
    for await (const _ of counting.allPayments({ recipient: merchant, limit: 1 })) break;
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
});
