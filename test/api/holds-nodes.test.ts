import { assert } from "chai";
import supertest from "supertest";
import { encodeAbiParameters, encodeEventTopics, erc20Abi, numberToHex, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import type { Service } from "../../src/service.js";
import { RECEIVER_HOST } from "../helpers/receiver.js";
import { useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";
import { serviceReadingFirst } from "../helpers/read-first.js";

/**
 * A hold's verdict on one node's word (DESIGN v7, "One door for verdicts"): three nodes in front of
 * one chain, the one read first forging a capture of a hold nobody captured.
 */
describe("holds: three nodes, one lying", function () {
  this.timeout(90_000);
  const h = useService({ WEBHOOKS_ALLOW_LOOPBACK: "true" }, { nodes: 3 });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  let built: Service | null = null;
  afterEach(() => {
    built = null;
    for (const node of h.nodes) {
      node.latencyMs = 0;
      node.rewrite = null;
    }
  });
  async function post(service: Service, path: string, body: object) {
    const res = await supertest(service.app).post(path).send(body);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  it("a capture forged by the node read first: the hold stays AUTHORIZED with nothing captured, and no hold.captured is announced", async () => {
    const now = Math.floor(h.clock.now() / 1000);
    const created = await post(h.service, "/v1/holds", {
      recipient: merchant().address,
      amount: "50.00",
      capture_before: now + 3600,
      refund_before: now + 86_400,
      notify_url: `https://${RECEIVER_HOST}/hooks/holds`,
    });
    const resolved = await post(h.service, "/v1/holds/resolve", { hold: created.checkout_token, payer: buyer().address });
    const signature = signWithMetaMask(buyer(), resolved.typed_data);
    const sent = await post(h.service, "/v1/holds/authorize", { hold: created.checkout_token, payer: buyer().address, signature });
    const receipt = await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.tx_hash });
    await h.chain.mine(3);
    await h.service.holdOperator!.follow();
    // The honest round: the authorization announced, and the payment it names kept with the watch.
    await h.service.webhooks.holdWatcher!.tick();
    const escrow = h.service.deployment.authCapture![0]!.escrow;
    const paymentHash = receipt.logs.find((l) => l.address.toLowerCase() === escrow.toLowerCase())!.topics[1]!;
    // A later transaction of someone else's: the lie sits in its place.
    const other = await h.chain.publicClient.waitForTransactionReceipt({
      hash: await h.chain.wallet(buyer()).writeContract({
        address: h.service.deployment.token.address,
        abi: erc20Abi,
        functionName: "transfer",
        args: [merchant().address, 1n],
        account: buyer(),
        chain: h.chain.chain,
      }),
    });
    await h.chain.mine(3);
    const forged = {
      address: escrow,
      topics: encodeEventTopics({ abi: authCaptureEscrowAbi, eventName: "PaymentCaptured", args: { paymentInfoHash: paymentHash as Hex } }),
      data: encodeAbiParameters(
        [{ type: "uint256" }, { type: "uint256" }, { type: "address" }],
        [50_000_000n, (50_000_000n * BigInt(h.service.deployment.parameters.feeBps)) / 10_000n, h.service.deployment.parameters.feeCollector],
      ),
      blockHash: other.blockHash,
      blockNumber: numberToHex(other.blockNumber),
      transactionHash: other.transactionHash,
      transactionIndex: numberToHex(other.transactionIndex),
      logIndex: numberToHex(other.logs[0]!.logIndex),
      removed: false,
    };
    h.nodes[0]!.rewrite = (request, result) => {
      const filter = request.params?.[0] as { address?: string | string[] } | undefined;
      const addresses = [filter?.address ?? []].flat().map((x) => x.toLowerCase());
      if (request.method !== "eth_getLogs" || !Array.isArray(result) || !addresses.includes(escrow.toLowerCase())) return result;
      return [...result, forged];
    };
    built = await serviceReadingFirst(h, h.nodes[0]!);
    // The round goes on with the logs a majority holds: the liar's capture is left out, no failure.
    await built.webhooks.holdWatcher!.tick();
    assert.isAtLeast(h.nodes[0]!.lied("eth_getLogs"), 1, "the hold watcher was served the forged capture");
    const events = (await post(built, "/v1/events", { hold: created.hold })).events as Array<{ type: string }>;
    assert.deepEqual(
      events.map((e) => e.type),
      ["hold.authorized"],
      "no hold.captured on one node's word",
    );
    // Another instance (the door set the liar aside in the first), the liar read first again. The
    // state reads the receipts of the service's own calls: the liar adds the forged capture to the
    // authorization's receipt.
    h.nodes[0]!.rewrite = (request, result) => {
      const r = result as { transactionHash?: Hex; logs: unknown[] } | null;
      if (request.method !== "eth_getTransactionReceipt" || !r || r.transactionHash !== sent.tx_hash) return result;
      return {
        ...r,
        logs: [
          ...r.logs,
          {
            ...forged,
            transactionHash: r.transactionHash,
            blockHash: receipt.blockHash,
            blockNumber: numberToHex(receipt.blockNumber),
            transactionIndex: numberToHex(receipt.transactionIndex),
            logIndex: numberToHex(r.logs.length),
          },
        ],
      };
    };
    const state = await post(await serviceReadingFirst(h, h.nodes[0]!), "/v1/holds/state", { hold: created.hold });
    assert.isAtLeast(h.nodes[0]!.lied("eth_getTransactionReceipt"), 1, "the state's read was served the forged capture in the authorization's receipt");
    assert.deepInclude(state, { state: "AUTHORIZED", captured_units: "0", capturable_units: "50000000" }, "no final step on one node's word");
    assert.deepEqual(
      state.steps.map((s: { step: string; final: boolean }) => [s.step, s.final]),
      [["authorized", true]],
      "the forged capture, held by no majority, is left out",
    );
    // The honest majority, read first: the hold as it is.
    h.nodes[0]!.rewrite = null;
    const honest = await post(await serviceReadingFirst(h, h.nodes[1]!), "/v1/holds/state", { hold: created.hold });
    assert.deepInclude(honest, { state: "AUTHORIZED", captured_units: "0", capturable_units: "50000000" });
  });
});
