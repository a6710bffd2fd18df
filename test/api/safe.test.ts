import { assert } from "chai";
import { encodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { ierc1271Abi, recurringChargesAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { typedDataDigest, type ResolvedTerms } from "../helpers/recurring.js";
import { payIntent } from "../helpers/payments.js";
import { balanceOf, send } from "../helpers/tx.js";
import {
  createSafe,
  deploySafeInfrastructure,
  execTransaction,
  multiSend,
  safeMessageSignature,
  signOnChain,
  type SafeInfrastructure,
} from "../helpers/safe.js";

/** Safe 1.4.1 (singleton, SafeProxyFactory, CompatibilityFallbackHandler) as payer and as merchant. */
describe("Safe accounts (Safe 1.4.1)", function () {
  this.timeout(60_000);
  const h = useService();
  const owner = (i: number) => h.chain.accounts[LOCAL_ROLES.firstUser + 3 + i]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const usdc = () => h.chain.deployment.token.address;
  const recurring = () => h.chain.deployment.contracts.RecurringCharges.address;
  const post = (path: string, body: object) => h.api.post(path).send(body);
  let infra: SafeInfrastructure;

  beforeEach(async () => {
    infra = await deploySafeInfrastructure(h.chain, h.chain.accounts[LOCAL_ROLES.deployer]!);
  });

  /** A Safe holding 100 USDC, sent by its first owner. */
  async function fundedSafe(owners: HDAccount[], threshold: number): Promise<Address> {
    const safe = await createSafe(h.chain, infra, owners[0]!, owners, threshold);
    await send(h.chain, owners[0]!, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [safe, 100_000_000n] });
    return safe;
  }

  /** Creates and resolves terms for the Safe as payer; returns the digest its owners sign. */
  async function terms(safe: Address) {
    const created = await post("/v1/subscriptions", { recipient: merchant().address, amount: "10", period: 3600 });
    assert.equal(created.status, 200);
    const resolved = (await post("/v1/subscriptions/resolve", { setup_token: created.body.setup_token })).body as ResolvedTerms;
    return { setupToken: created.body.setup_token as string, digest: typedDataDigest(resolved, safe) };
  }

  async function chargeUntilCharged(subscription: string) {
    const first = await post("/v1/charges", { subscription });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.status, "CONFIRMING");
    await h.chain.mine(2);
    const settled = await post("/v1/charges", { subscription });
    assert.equal(settled.body.status, "CHARGED", JSON.stringify(settled.body));
  }

  const approveAsSafe = (safe: Address, owners: HDAccount[], amount: bigint) =>
    execTransaction(h.chain, safe, owners, { to: usdc(), data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [recurring(), amount] }) });

  it("a 1-of-1 Safe as payer: finalize checks its ERC-1271 signature, it approves and revokes through execTransaction", async () => {
    const owners = [owner(0)];
    const safe = await fundedSafe(owners, 1);
    const { setupToken, digest } = await terms(safe);
    const signature = await safeMessageSignature(h.chain, safe, owners, digest);
    assert.equal(
      await h.chain.publicClient.readContract({ address: safe, abi: ierc1271Abi, functionName: "isValidSignature", args: [digest, signature] }),
      "0x1626ba7e",
    );
    const finalized = await post("/v1/subscriptions/finalize", { setup_token: setupToken, payer: safe, signature });
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
    const subscription = finalized.body.subscription as string;

    assert.equal((await post("/v1/charges", { subscription })).body.error, "INSUFFICIENT_ALLOWANCE");
    await approveAsSafe(safe, owners, 100_000_000n);
    const merchantBefore = await balanceOf(h.chain, usdc(), merchant().address);
    await chargeUntilCharged(subscription);
    assert.equal((await balanceOf(h.chain, usdc(), merchant().address)) - merchantBefore, 9_700_000n);

    const session = await post("/v1/subscriptions/revoke/session", { subscription });
    const prepared = await post("/v1/subscriptions/revoke/prepare", { subscription: session.body.cancel_token });
    assert.equal(prepared.body.payer, safe);
    await execTransaction(h.chain, safe, owners, { to: prepared.body.to, data: prepared.body.data });
    assert.equal((await post("/v1/subscriptions/state", { subscription })).body.state, "REVOKED");
    await h.chain.advanceTime(3600);
    assert.equal((await post("/v1/charges", { subscription })).body.error, "PERMISSION_REVOKED");
  });

  it("a Safe subscribing through a subscription link is asked the same as any payer: refused until its own allowance covers the first charge, then kept and charged", async () => {
    const owners = [owner(0)];
    const safe = await fundedSafe(owners, 1);
    const link = await post("/v1/links", { recipient: merchant().address, amount: "10", period: 3600 });
    assert.equal(link.status, 200, JSON.stringify(link.body));
    const resolved = (await post("/v1/subscriptions/resolve", { setup_token: link.body.link })).body as ResolvedTerms & { setup_token: string };
    const signature = await safeMessageSignature(h.chain, safe, owners, typedDataDigest(resolved, safe));
    const subscribe = () => post("/v1/links/subscribe", { setup_token: resolved.setup_token, payer: safe, signature });
    // The owner's own allowance does not count: the Safe is the payer.
    await send(h.chain, owners[0]!, { address: usdc(), abi: erc20Abi, functionName: "approve", args: [recurring(), 100_000_000n] });
    const refused = await subscribe();
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { error: "INSUFFICIENT_ALLOWANCE", action: "ASK_PAYER" });
    assert.deepEqual((await post("/v1/links/subscriptions", { manage_token: link.body.manage_token })).body.subscriptions, []);
    await approveAsSafe(safe, owners, 100_000_000n);
    let kept = await subscribe();
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    // The service's first charge (an ERC-1271 check on chain): listed once it is settled.
    for (let tries = 0; kept.body.state === "PENDING" && tries < 5; tries++) {
      if (tries > 0) await h.chain.advanceTime(1);
      await h.chain.mine(2);
      kept = await subscribe();
    }
    assert.equal(kept.body.state, "ACTIVE", JSON.stringify(kept.body));
    const [listed] = (await post("/v1/links/subscriptions", { manage_token: link.body.manage_token })).body.subscriptions as {
      subscription: string;
      payer: Address;
    }[];
    assert.equal(listed!.payer, safe);
    const charged = await post("/v1/charges", { subscription: listed!.subscription });
    assert.equal(charged.body.status, "ALREADY_CHARGED", "its first period was charged by the service");
  });

  it("a 2-of-3 Safe as payer: two owners' signatures finalize and charge; one owner's is INVALID_SIGNATURE", async () => {
    const owners = [owner(0), owner(1), owner(2)];
    const safe = await fundedSafe(owners, 2);
    const { setupToken, digest } = await terms(safe);
    const one = await safeMessageSignature(h.chain, safe, [owners[1]!], digest);
    const refused = await post("/v1/subscriptions/finalize", { setup_token: setupToken, payer: safe, signature: one });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, "INVALID_SIGNATURE");
    const two = await safeMessageSignature(h.chain, safe, [owners[0]!, owners[2]!], digest);
    const finalized = await post("/v1/subscriptions/finalize", { setup_token: setupToken, payer: safe, signature: two });
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
    await approveAsSafe(safe, [owners[1]!, owners[2]!], 100_000_000n);
    await chargeUntilCharged(finalized.body.subscription);
  });

  it("a Safe that signed on chain (SignMessageLib): signature 0x, which finalize and the contract accept", async () => {
    const owners = [owner(0), owner(1)];
    const safe = await fundedSafe(owners, 2);
    const { setupToken, digest } = await terms(safe);
    const early = await post("/v1/subscriptions/finalize", { setup_token: setupToken, payer: safe, signature: "0x" });
    assert.equal(early.status, 400, "not approved on chain yet");
    assert.equal(early.body.error, "INVALID_SIGNATURE");
    await signOnChain(h.chain, safe, infra, owners, digest);
    const finalized = await post("/v1/subscriptions/finalize", { setup_token: setupToken, payer: safe, signature: "0x" });
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
    await approveAsSafe(safe, owners, 100_000_000n);
    await chargeUntilCharged(finalized.body.subscription);
    const [, paidCount, revoked] = await h.chain.publicClient.readContract({
      address: recurring(),
      abi: recurringChargesAbi,
      functionName: "subscriptions",
      args: [finalized.body.subscription_id as Hex],
    });
    assert.deepEqual([revoked, paidCount], [false, 1]);
  });

  it("a Safe merchant is paid, refunds through execTransaction (sent by an owner), and refund verify matches by the Transfer event", async () => {
    const owners = [owner(0), owner(1), owner(2)];
    const safe = await createSafe(h.chain, infra, owners[0]!, owners, 2);
    const intent = (await post("/v1/payments", { recipient: safe, amount: "8" })).body;
    const receipt = await payIntent(h.chain, buyer(), intent.pay);
    assert.equal(await balanceOf(h.chain, usdc(), safe), 7_840_000n);
    await h.chain.mine(2);
    const prepared = await post("/v1/refunds/prepare", { intent: intent.intent, tx_hash: receipt.transactionHash, amount: "5000000" });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.equal(prepared.body.merchant, safe);
    const refund = await execTransaction(h.chain, safe, [owners[0]!, owners[1]!], {
      to: usdc(),
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [buyer().address, 5_000_000n] }),
    });
    assert.equal(refund.from.toLowerCase(), owners[0]!.address.toLowerCase(), "the transaction is the owner's, the transfer the Safe's");
    await h.chain.mine(2);
    const verified = await post("/v1/refunds/verify", {
      intent: intent.intent,
      tx_hash: receipt.transactionHash,
      refund_amount: "5000000",
      refund_tx_hash: refund.transactionHash,
    });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.deepInclude(verified.body, { status: "REFUNDED", merchant: safe, payer: buyer().address, refund_amount: "5000000" });
  });

  it("a Safe merchant's batched refund (MultiSendCallOnly: the payer and someone else) verifies by its one transfer to the payer", async () => {
    const owners = [owner(0), owner(1)];
    const safe = await fundedSafe(owners, 2);
    const intent = (await post("/v1/payments", { recipient: safe, amount: "8" })).body;
    const receipt = await payIntent(h.chain, buyer(), intent.pay);
    await h.chain.mine(2);
    const transfer = (to: Address, value: bigint) => ({
      to: usdc(),
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] }),
    });
    const someoneElse = h.chain.accounts[LOCAL_ROLES.firstUser + 2]!.address;
    const batched = await execTransaction(h.chain, safe, owners, multiSend(infra, [transfer(buyer().address, 100_000n), transfer(someoneElse, 500_000n)]));
    const twoToPayer = await execTransaction(h.chain, safe, owners, multiSend(infra, [transfer(buyer().address, 50_000n), transfer(buyer().address, 50_000n)]));
    await h.chain.mine(2);
    const fromSafe = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: batched.logs }).filter((l) => l.args.from === safe);
    assert.equal(fromSafe.length, 2, "one transaction, two transfers out of the Safe");
    const verify = (refund_amount: string, refund_tx_hash: Hex) =>
      post("/v1/refunds/verify", { intent: intent.intent, tx_hash: receipt.transactionHash, refund_amount, refund_tx_hash });

    const verified = await verify("100000", batched.transactionHash);
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.deepInclude(verified.body, { status: "REFUNDED", merchant: safe, payer: buyer().address, refund_amount: "100000" });
    // The transfer to someone else is not a refund to the payer, nor is the sum of both.
    for (const amount of ["500000", "600000"]) {
      assert.deepEqual((await verify(amount, batched.transactionHash)).body, { error: "REFUND_TRANSACTION_MISMATCH", action: "FIX_REQUEST" }, amount);
    }
    // Exactly one transfer to the payer: two of them in one transaction match neither amount.
    for (const amount of ["50000", "100000"]) {
      assert.deepEqual((await verify(amount, twoToPayer.transactionHash)).body, { error: "REFUND_TRANSACTION_MISMATCH", action: "FIX_REQUEST" }, amount);
    }
  });
});
