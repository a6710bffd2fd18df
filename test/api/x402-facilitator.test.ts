import { assert } from "chai";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { erc20Abi, getAddress, hashTypedData, serializeErc6492Signature, type Address, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { balanceOf, send } from "../helpers/tx.js";
import { eoaSigner, X402_NETWORK } from "../helpers/x402-parties.js";
import { fiatTokenAbi, splitterAbi, testSmartAccountAbi } from "../../src/generated/contracts.js";
import { tokenDomain } from "../../src/chain/token-authorizations.js";
import { deployTestContract } from "../helpers/deploy.js";
import { DepositWatches } from "../../src/store/deposit-watches.js";

/**
 * The facilitator's endpoints on their own (no paywall): what it supports, each refusal in x402's
 * shape, and settle's answers when the payment address already settled or two settles race.
 */
describe("x402 facilitator endpoints (/x402/supported, /x402/verify, /x402/settle)", function () {
  this.timeout(60_000);
  /** Runs once, just before the relayer's next broadcast (what happens between a settlement's simulation and its mining). */
  let onBroadcast: (() => Promise<void>) | null = null;
  const h = useService(
    {},
    {
      deps: () => ({
        beforeBroadcast: async () => {
          const hook = onBroadcast;
          onBroadcast = null;
          await hook?.();
        },
      }),
    },
  );
  const agent = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const usdc = () => h.service.deployment.token.address;

  /** A payment created through the API, and the requirements a paywall would hand out for it. */
  async function requirementsForNewPayment(amount = "0.25"): Promise<{ requirements: PaymentRequirements; reference: `0x${string}` }> {
    const created = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount });
    assert.equal(created.status, 200);
    return {
      reference: created.body.reference,
      requirements: {
        scheme: "exact",
        network: X402_NETWORK,
        amount: created.body.pay.amount_units,
        asset: usdc(),
        payTo: created.body.pay.deposit_address,
        maxTimeoutSeconds: 60,
        extra: { name: "USDC", version: "2" },
      },
    };
  }
  async function signed(requirements: PaymentRequirements, account = agent()): Promise<PaymentPayload> {
    const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(eoaSigner(account, h.chain.publicClient)));
    return client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [requirements] } as never);
  }
  const call = (path: "verify" | "settle", body: unknown) => h.api.post(`/x402/${path}`).send(body as object);
  const request = (payload: PaymentPayload, requirements: PaymentRequirements) => ({
    x402Version: 2,
    paymentPayload: payload,
    paymentRequirements: requirements,
  });

  it("GET /x402/supported: exact and auth-capture on eip155:84532, x402 version 2, no extensions, the relayer as signer", async () => {
    const res = await h.api.get("/x402/supported");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      kinds: [{ x402Version: 2, scheme: "exact", network: X402_NETWORK }, h.service.x402.supported().kinds[1]],
      extensions: [],
      signers: { "eip155:*": [h.chain.accounts[LOCAL_ROLES.relayer]!.address] },
    });
    assert.equal((await h.api.post("/x402/supported").send({})).status, 405);
    assert.equal((await h.api.get("/x402/verify")).status, 405);
  });

  it("refuses, in x402's shape, what it cannot settle: another version, scheme, network or asset, a payTo it did not issue, another amount, a Permit2 payload", async () => {
    const { requirements } = await requirementsForNewPayment();
    const payload = await signed(requirements);
    const payer = agent().address;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["version 1", { ...request(payload, requirements), x402Version: 1 }, "invalid_x402_version"],
      ["another scheme", request(payload, { ...requirements, scheme: "upto" }), "unsupported_scheme"],
      [
        "another network",
        request({ ...payload, accepted: { ...payload.accepted, network: "eip155:8453" } }, { ...requirements, network: "eip155:8453" }),
        "invalid_network",
      ],
      ["another asset", request(payload, { ...requirements, asset: merchant().address }), "invalid_payment_requirements"],
      ["a payTo it did not issue", request(payload, { ...requirements, payTo: merchant().address }), "invalid_payment_requirements"],
      ["another amount", request(payload, { ...requirements, amount: "1" }), "invalid_payment_requirements"],
      ["a Permit2 payload", request({ ...payload, payload: { signature: "0x00", permit2Authorization: {} } }, requirements), "invalid_payload"],
    ];
    for (const [what, body, reason] of cases) {
      const verified = await call("verify", body);
      assert.equal(verified.status, 200, what);
      assert.equal(verified.body.isValid, false, what);
      assert.equal(verified.body.invalidReason, reason, what);
      if (what !== "a Permit2 payload") assert.equal(getAddress(verified.body.payer), payer, `${what}: the payer is named`);
      const settled = await call("settle", body);
      assert.include(settled.body, { success: false, errorReason: reason, transaction: "" }, what);
    }
    assert.equal(await balanceOf(h.chain, usdc(), requirements.payTo as Address), 0n, "nothing moved");
  });

  it("a refusal names the rule that refused, in one sentence of this service's: a replay never carries the library's revert text, an empty EIP-3009 authorization is refused as one, a Permit2 payload as Permit2", async () => {
    const { requirements } = await requirementsForNewPayment();
    const payload = await signed(requirements);
    assert.isTrue((await call("settle", request(payload, requirements))).body.success);
    const replayed = await call("verify", request(payload, requirements));
    assert.deepEqual(replayed.body, {
      isValid: false,
      invalidReason: "invalid_exact_evm_nonce_already_used",
      invalidMessage: "this authorization's nonce is used: USDC moves an authorization once, and this one has moved",
      payer: agent().address,
    });
    const settledAgain = await call("settle", request(payload, requirements));
    assert.include(settledAgain.body, { success: false, errorReason: "invalid_exact_evm_nonce_already_used" });

    const { requirements: fresh } = await requirementsForNewPayment();
    const empty = await call("verify", request({ ...payload, payload: { signature: "0x00", authorization: {} } }, fresh));
    assert.equal(empty.body.invalidReason, "invalid_payload");
    assert.match(empty.body.invalidMessage, /^the EIP-3009 authorization is incomplete or malformed: authorization\.from is missing/);
    assert.notInclude(empty.body.invalidMessage, "Permit2");
    const permit2 = await call("verify", request({ ...payload, payload: { signature: "0x00", permit2Authorization: {} } }, fresh));
    assert.include(permit2.body, { invalidReason: "invalid_payload" });
    assert.match(permit2.body.invalidMessage, /^a Permit2 payload/);
    for (const answer of [replayed, settledAgain, empty, permit2]) {
      const text = JSON.stringify(answer.body);
      assert.notMatch(text, /\\n|Contract Call|Request Arguments|Docs:|Version: viem/, "no library's multi-line text");
    }
  });

  it("an undeployed smart account (an ERC-6492 signature) is refused as x402 refuses it with no allowed factory; nothing moves", async () => {
    const { requirements } = await requirementsForNewPayment();
    const payload = await signed(requirements);
    const counterfactual = `0x${"c0".repeat(20)}` as Address;
    const wrapped = serializeErc6492Signature({
      address: merchant().address, // any factory: none is allowed
      data: "0xdeadbeef",
      signature: (payload.payload as { signature: Hex }).signature,
    });
    const authorization = { ...(payload.payload as { authorization: Record<string, string> }).authorization, from: counterfactual };
    const body = request({ ...payload, payload: { signature: wrapped, authorization } }, requirements);
    assert.include((await call("verify", body)).body, { isValid: false, invalidReason: "eip6492_factory_not_allowed" });
    assert.include((await call("settle", body)).body, { success: false, errorReason: "eip6492_factory_not_allowed", transaction: "" });
    assert.equal(await balanceOf(h.chain, usdc(), requirements.payTo as Address), 0n);
  });

  it("a body that is not an x402 request is 400 in x402's shape, naming the field and never its value", async () => {
    const secret = "sk.secret.0xdeadbeefcafe";
    for (const path of ["verify", "settle"] as const) {
      const wrong = await call(path, { x402Version: 2, paymentPayload: { value: secret }, paymentRequirements: secret });
      assert.equal(wrong.status, 400, path);
      const message = String(path === "verify" ? wrong.body.invalidMessage : wrong.body.errorMessage);
      assert.match(message, /^paymentPayload\.|^paymentPayload: |^paymentRequirements: /, path);
      assert.notInclude(JSON.stringify(wrong.body), "deadbeef", `${path}: the value sent is never echoed`);
      const missing = await call(path, { x402Version: 2 });
      assert.equal(missing.status, 400, path);
      assert.equal(path === "verify" ? missing.body.invalidReason : missing.body.errorReason, "invalid_payload");
      const notJson = await h.api.post(`/x402/${path}`).set("content-type", "application/json").send("{not json");
      assert.equal(notJson.status, 400, path);
      assert.equal(path === "verify" ? notJson.body.isValid : notJson.body.success, false);
    }
  });

  it("a payment already settled by other funds: a fresh authorization for it is refused, and moves nothing", async () => {
    const { requirements, reference } = await requirementsForNewPayment();
    const payTo = requirements.payTo as Address;
    // Somebody paid the address by plain transfer, and it settled.
    await send(h.chain, agent(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [payTo, 250_000n] });
    await send(h.chain, agent(), {
      address: h.service.deployment.contracts.Splitter.address,
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [usdc(), merchant().address, 250_000n, reference],
    });
    const other = h.chain.accounts[LOCAL_ROLES.firstUser + 4]!;
    const payload = await signed(requirements, other);
    const before = await balanceOf(h.chain, usdc(), other.address);
    assert.include((await call("verify", request(payload, requirements))).body, { isValid: false, invalidReason: "invalid_payment_requirements" });
    assert.include((await call("settle", request(payload, requirements))).body, { success: false, errorReason: "invalid_payment_requirements" });
    assert.equal(await balanceOf(h.chain, usdc(), other.address), before);
  });

  it("two settles of one payment at once (the same payment header twice): one transaction, one success, paid once", async () => {
    const { requirements } = await requirementsForNewPayment();
    const payload = await signed(requirements);
    const before = await balanceOf(h.chain, usdc(), agent().address);
    const answers = await Promise.all([call("settle", request(payload, requirements)), call("settle", request(payload, requirements))]);
    const won = answers.filter((a) => a.body.success === true);
    const lost = answers.filter((a) => a.body.success === false);
    assert.lengthOf(won, 1, JSON.stringify(answers.map((a) => a.body)));
    assert.lengthOf(lost, 1);
    assert.include(lost[0]!.body, { errorReason: "invalid_exact_evm_nonce_already_used", transaction: "" });
    assert.equal(before - (await balanceOf(h.chain, usdc(), agent().address)), 250_000n);
    // Asked again later (a replay straight to settle): still not a second success.
    assert.include((await call("settle", request(payload, requirements))).body, { success: false, errorReason: "invalid_exact_evm_nonce_already_used" });
  });

  it("an authorization cancelled (used, but it moved nothing) for a settled payTo is not a payment", async () => {
    const { requirements } = await requirementsForNewPayment();
    assert.isTrue((await call("settle", request(await signed(requirements), requirements))).body.success);
    const stranger = h.chain.accounts[LOCAL_ROLES.firstUser + 4]!;
    const theirs = await signed(requirements, stranger);
    const nonce = (theirs.payload as { authorization: { nonce: Hex } }).authorization.nonce;
    const cancel = await stranger.signTypedData({
      domain: tokenDomain(84532, usdc(), h.service.deployment.token.eip712),
      types: {
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: stranger.address, nonce },
    });
    await send(h.chain, stranger, { address: usdc(), abi: fiatTokenAbi, functionName: "cancelAuthorization", args: [stranger.address, nonce, cancel] });
    const before = await balanceOf(h.chain, usdc(), stranger.address);
    const settled = await call("settle", request(theirs, requirements));
    assert.include(settled.body, { success: false, errorReason: "invalid_exact_evm_nonce_already_used", transaction: "" });
    assert.equal(await balanceOf(h.chain, usdc(), stranger.address), before, "the stranger paid nothing, and is told so");
  });

  it("a contract payer whose signature check burns gas: verify and settle refuse past the ceiling, and nothing is sent", async () => {
    const owner = h.chain.accounts[LOCAL_ROLES.firstUser + 5]!;
    const account = await deployTestContract(h.chain, owner, testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [owner.address]);
    await send(h.chain, agent(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [account, 1_000_000n] });
    await send(h.chain, owner, { address: account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [5_000n] });
    const { requirements } = await requirementsForNewPayment();
    const signer = { address: account, signTypedData: (typed: Parameters<typeof hashTypedData>[0]) => owner.sign({ hash: hashTypedData(typed) }) };
    const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(signer as never));
    const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [requirements] } as never);
    const relayer = h.chain.accounts[LOCAL_ROLES.relayer]!.address;
    const nonceBefore = await h.chain.publicClient.getTransactionCount({ address: relayer });
    const verified = await call("verify", request(payload, requirements));
    assert.include(verified.body, { isValid: false, invalidReason: "invalid_transaction_state" }, "refused before the resource is served");
    assert.include(verified.body.invalidMessage, "gas");
    const settled = await call("settle", request(payload, requirements));
    assert.include(settled.body, { success: false, errorReason: "invalid_transaction_state", transaction: "" });
    assert.include(settled.body.errorMessage, "gas");
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), nonceBefore, "the relayer sent nothing");
    assert.equal(await balanceOf(h.chain, usdc(), account), 1_000_000n);
  });

  it("a settlement that reverts on chain after its simulation passed: the relayer sends no other of that payer's, and verify says so first", async () => {
    const first = await requirementsForNewPayment();
    // USDC pauses between the simulation and the mining (what a payer whose code answers a simulation
    // one way and the chain another can do).
    onBroadcast = () => send(h.chain, h.chain.usdcRoles.pauser, { address: usdc(), abi: fiatTokenAbi, functionName: "pause", args: [] }).then(() => {});
    const reverted = await call("settle", request(await signed(first.requirements), first.requirements));
    assert.include(reverted.body, { success: false, errorReason: "invalid_transaction_state" });
    await send(h.chain, h.chain.usdcRoles.pauser, { address: usdc(), abi: fiatTokenAbi, functionName: "unpause", args: [] });
    const relayer = h.chain.accounts[LOCAL_ROLES.relayer]!.address;
    const nonceBefore = await h.chain.publicClient.getTransactionCount({ address: relayer });
    // The same payer, on a fresh payment address: refused at verify and at settle, nothing sent.
    const next = await requirementsForNewPayment();
    const payload = await signed(next.requirements);
    assert.include((await call("verify", request(payload, next.requirements))).body, { isValid: false, invalidReason: "invalid_transaction_state" });
    const again = await call("settle", request(payload, next.requirements));
    assert.include(again.body, { success: false, errorReason: "invalid_transaction_state" });
    assert.include(again.body.errorMessage, "reverted");
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), nonceBefore, "no second settlement sent");
    // Another payer is not concerned.
    const other = h.chain.accounts[LOCAL_ROLES.firstUser + 6]!;
    assert.isTrue((await call("settle", request(await signed(next.requirements, other), next.requirements))).body.success);
  });

  it("a contract payer's settlements go one at a time: requests at once cost the relayer one reverted settlement, not one each", async () => {
    const owner = h.chain.accounts[LOCAL_ROLES.firstUser + 5]!;
    const account = await deployTestContract(h.chain, owner, testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [owner.address]);
    await send(h.chain, agent(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [account, 1_000_000n] });
    const signer = { address: account, signTypedData: (typed: Parameters<typeof hashTypedData>[0]) => owner.sign({ hash: hashTypedData(typed) }) };
    const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(signer as never));
    const bodies = [];
    for (let i = 0; i < 3; i++) {
      const { requirements } = await requirementsForNewPayment();
      const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [requirements] } as never);
      bodies.push(request(payload, requirements));
    }
    const relayer = h.chain.accounts[LOCAL_ROLES.relayer]!.address;
    const nonceBefore = await h.chain.publicClient.getTransactionCount({ address: relayer });
    // The first settlement to go out reverts on chain (USDC paused after its simulation).
    onBroadcast = () => send(h.chain, h.chain.usdcRoles.pauser, { address: usdc(), abi: fiatTokenAbi, functionName: "pause", args: [] }).then(() => {});
    const answers = await Promise.all(bodies.map((b) => call("settle", b)));
    await send(h.chain, h.chain.usdcRoles.pauser, { address: usdc(), abi: fiatTokenAbi, functionName: "unpause", args: [] });
    assert.deepEqual(
      answers.map((a) => [a.body.success, a.body.errorReason]),
      [
        [false, "invalid_transaction_state"],
        [false, "invalid_transaction_state"],
        [false, "invalid_transaction_state"],
      ],
    );
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), nonceBefore + 1, "one settlement sent, the others refused");
    assert.equal(await balanceOf(h.chain, usdc(), account), 1_000_000n);
  });

  it("a front-runner who copies the settlement from the mempool: ours reverts, the agent is still answered success, and the payer is not refused", async () => {
    const { requirements, reference } = await requirementsForNewPayment();
    const payload = await signed(requirements);
    const a = (payload.payload as { authorization: Record<string, string> }).authorization;
    const signature = (payload.payload as { signature: Hex }).signature;
    let theirs: Hex | undefined;
    onBroadcast = async () => {
      theirs = (
        await send(h.chain, h.chain.accounts[LOCAL_ROLES.firstUser + 7]!, {
          address: h.service.deployment.contracts.Splitter.address,
          abi: splitterAbi,
          functionName: "settleDepositFromAuthorization",
          args: [usdc(), merchant().address, 250_000n, reference, a.from as Address, BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce as Hex, signature],
        })
      ).transactionHash;
    };
    const settled = await call("settle", request(payload, requirements));
    assert.deepEqual(settled.body, { success: true, payer: agent().address, transaction: theirs, network: X402_NETWORK });
    // The copy made ours revert (AlreadySettled); that is not the payer's doing: their next payment settles.
    const next = await requirementsForNewPayment();
    assert.isTrue((await call("settle", request(await signed(next.requirements), next.requirements))).body.success);
  });

  it("a stranger who rebuilds the settle request (from the mempool or the chain) cannot take the agent's answer", async () => {
    const { requirements } = await requirementsForNewPayment();
    const body = request(await signed(requirements), requirements);
    const strangers: Array<{ success: boolean; errorReason?: string }> = [];
    // The stranger asks while the agent's settlement is on its way, and again once it is mined.
    onBroadcast = async () => {
      strangers.push((await call("settle", body)).body);
    };
    const agentAnswer = await call("settle", body);
    strangers.push((await call("settle", body)).body);
    assert.include(agentAnswer.body, { success: true }, JSON.stringify(agentAnswer.body));
    assert.deepEqual(
      strangers.map((a) => [a.success, a.errorReason]),
      [
        [false, "invalid_exact_evm_nonce_already_used"],
        [false, "invalid_exact_evm_nonce_already_used"],
      ],
    );
  });

  it("a front-run settled and final before the merchant's settle: still the merchant's success, naming that settlement", async () => {
    const { requirements } = await requirementsForNewPayment();
    const payload = await signed(requirements);
    assert.include((await call("verify", request(payload, requirements))).body, { isValid: true });
    // A leaked header, straight to USDC; the service settles the address by itself, and it is final.
    const a = (payload.payload as { signature: Hex; authorization: Record<string, string> }).authorization;
    const signature = (payload.payload as { signature: Hex }).signature;
    await send(h.chain, h.chain.accounts[LOCAL_ROLES.firstUser + 7]!, {
      address: usdc(),
      abi: fiatTokenAbi,
      functionName: "transferWithAuthorization",
      args: [a.from as Address, a.to as Address, BigInt(a.value!), BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce as Hex, signature],
    });
    const settler = h.service.depositSettler;
    assert.equal((await settler.tick()).sent, 1);
    const settlement = (await new DepositWatches(h.database).find(getAddress(requirements.payTo)))!.txHash!;
    await h.chain.mine(3);
    assert.equal((await settler.tick()).settled, 1, "settled and final: the settler is done with it");
    const settled = await call("settle", request(payload, requirements));
    assert.deepEqual(settled.body, { success: true, payer: agent().address, transaction: settlement, network: X402_NETWORK });
  });

  it("without a relayer key: supported names no signer, and settle says it cannot send (nothing moves)", async () => {
    const { requirements } = await requirementsForNewPayment();
    const payload = await signed(requirements);
    const bare = await h.another({ RELAYER_PRIVATE_KEY: "" });
    const supertest = (await import("supertest")).default;
    const api = supertest.agent(bare.app);
    assert.deepEqual((await api.get("/x402/supported")).body.signers, { "eip155:*": [] });
    const settled = await api.post("/x402/settle").send(request(payload, requirements));
    assert.include(settled.body, { success: false, errorReason: "invalid_transaction_state", transaction: "" });
    assert.equal(await balanceOf(h.chain, usdc(), requirements.payTo as Address), 0n);
  });
});
