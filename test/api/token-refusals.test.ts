import { assert } from "chai";
import { currentPeriod } from "../helpers/subscriptions.js";
import type { Address } from "viem";
import type { HDAccount } from "viem/accounts";
import { fiatTokenAbi, recurringChargesAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { TOKEN_REVERT_REASONS, revertReason, tokenRefusal } from "../../src/chain/token-refusals.js";
import { chargeRefusal } from "../../src/recurring/charge-errors.js";
import { useService } from "../helpers/service.js";
import { approveThroughSession, subscribe } from "../helpers/recurring.js";
import { send } from "../helpers/tx.js";

/** Circle's USDC refusals, provoked through its roles (blacklister, pauser) on the local chain's real FiatToken. */
describe("token refusals a renewal job can act on (Circle's FiatToken)", function () {
  this.timeout(60_000);
  const h = useService();
  const payer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const other = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const usdc = () => h.chain.deployment.token.address;
  const relayerNonce = () => h.chain.publicClient.getTransactionCount({ address: h.chain.accounts[LOCAL_ROLES.relayer]!.address });
  const blacklist = (account: Address) =>
    send(h.chain, h.chain.usdcRoles.blacklister, { address: usdc(), abi: fiatTokenAbi, functionName: "blacklist", args: [account] });
  const pause = () => send(h.chain, h.chain.usdcRoles.pauser, { address: usdc(), abi: fiatTokenAbi, functionName: "pause", args: [] });
  const unpause = () => send(h.chain, h.chain.usdcRoles.pauser, { address: usdc(), abi: fiatTokenAbi, functionName: "unpause", args: [] });
  /** A transfer simulated on USDC: the error it fails with. */
  const failedTransfer = async (from: HDAccount, to: Address, amount: bigint, spender?: HDAccount): Promise<unknown> => {
    try {
      if (spender)
        await h.chain.publicClient.simulateContract({
          address: usdc(),
          abi: fiatTokenAbi,
          functionName: "transferFrom",
          args: [from.address, to, amount],
          account: spender.address,
        });
      else
        await h.chain.publicClient.simulateContract({
          address: usdc(),
          abi: fiatTokenAbi,
          functionName: "transfer",
          args: [to, amount],
          account: from.address,
        });
    } catch (error) {
      return error;
    }
    assert.fail("the transfer went through");
  };

  describe("the one table of the token's Error(string) reverts", () => {
    /** How to make real USDC revert with each reason of the table. */
    const provoke: Record<keyof typeof TOKEN_REVERT_REASONS, () => Promise<unknown>> = {
      "Blacklistable: account is blacklisted": async () => {
        await blacklist(merchant().address);
        return failedTransfer(payer(), merchant().address, 1n);
      },
      "Pausable: paused": async () => {
        await pause();
        return failedTransfer(payer(), merchant().address, 1n);
      },
      "ERC20: transfer amount exceeds balance": () => failedTransfer(payer(), merchant().address, 10n ** 18n),
      "ERC20: transfer amount exceeds allowance": () => failedTransfer(payer(), merchant().address, 1n, other()),
    };

    it("lists exactly the reasons tested here", () => {
      assert.sameMembers(Object.keys(TOKEN_REVERT_REASONS), Object.keys(provoke));
    });

    for (const [reason, code] of Object.entries(TOKEN_REVERT_REASONS)) {
      it(`"${reason}" from real USDC → ${code}`, async () => {
        const error = await provoke[reason as keyof typeof TOKEN_REVERT_REASONS]();
        assert.equal(revertReason(error), reason, "USDC's reason, byte for byte");
        assert.equal(tokenRefusal(error)?.code, code);
      });
    }

    it("a charge simulation that USDC refuses maps by the table, not to RELAYER_ERROR", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const signed = h.service.capabilities.read(s.subscription);
      const simulate = async () => {
        try {
          await h.chain.publicClient.estimateContractGas({
            address: h.chain.deployment.contracts.RecurringCharges.address,
            abi: recurringChargesAbi,
            functionName: "charge",
            args: [signed.terms, signed.signature, 0n, await currentPeriod(h.chain, signed.terms)],
            account: h.chain.accounts[LOCAL_ROLES.relayer]!.address,
          });
        } catch (error) {
          return error;
        }
        assert.fail("the charge simulation passed");
      };
      await pause();
      assert.equal(chargeRefusal(await simulate(), 0n)?.code, "TOKEN_PAUSED");
      await unpause();
      await blacklist(merchant().address);
      assert.equal(chargeRefusal(await simulate(), 0n)?.code, "ACCOUNT_BLOCKED");
    });
  });

  describe("POST /v1/charges", () => {
    const charge = (subscription: string) => h.api.post("/v1/charges").send({ subscription });

    for (const [who, account] of [
      ["payer", () => payer().address],
      ["recipient", () => merchant().address],
      ["fee collector", () => h.chain.deployment.parameters.feeCollector],
    ] as const) {
      it(`a blacklisted ${who}: 400 ACCOUNT_BLOCKED, action STOP, and nothing is sent`, async () => {
        const s = await subscribe(h, payer(), { recipient: merchant().address });
        await approveThroughSession(h, payer(), s.subscription);
        await blacklist(account());
        const nonce = await relayerNonce();
        const res = await charge(s.subscription);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { error: "ACCOUNT_BLOCKED", action: "STOP" });
        assert.equal(await relayerNonce(), nonce, "no transaction");
      });
    }

    it("a paused token: 503 TOKEN_PAUSED, action RETRY with Retry-After, nothing sent; after unpause the same call charges", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      await pause();
      const nonce = await relayerNonce();
      const res = await charge(s.subscription);
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { error: "TOKEN_PAUSED", action: "RETRY", retry_after: 60 });
      assert.equal(res.headers["retry-after"], "60");
      assert.equal(await relayerNonce(), nonce, "no transaction");
      await unpause();
      const after = await charge(s.subscription);
      assert.equal(after.status, 200, JSON.stringify(after.body));
      assert.equal(after.body.status, "CONFIRMING");
    });

    it("a period already charged still answers ALREADY_CHARGED while the token is paused", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      await charge(s.subscription);
      await h.chain.mine(2);
      assert.equal((await charge(s.subscription)).body.status, "CHARGED");
      await pause();
      assert.equal((await charge(s.subscription)).body.status, "ALREADY_CHARGED");
    });
  });

  describe("POST /v1/payments/resolve: a checkout must not take a payment that will revert", () => {
    const resolve = (intent: string) => h.api.post("/v1/payments/resolve").send({ intent });
    const create = async () => (await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "5" })).body;

    for (const [who, account] of [
      ["recipient", () => merchant().address],
      ["fee collector", () => h.chain.deployment.parameters.feeCollector],
    ] as const) {
      it(`a blacklisted ${who}: 400 ACCOUNT_BLOCKED, action STOP`, async () => {
        const intent = await create();
        await blacklist(account());
        const res = await resolve(intent.intent);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { error: "ACCOUNT_BLOCKED", action: "STOP" });
      });
    }

    it("a link to a blacklisted recipient: ACCOUNT_BLOCKED", async () => {
      const link = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "5" })).body;
      await blacklist(merchant().address);
      const res = await h.api.post("/v1/payments/resolve").send({ intent: /#\/link\/(.+)$/.exec(link.url)![1] });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: "ACCOUNT_BLOCKED", action: "STOP" });
    });

    it("a paused token: 503 TOKEN_PAUSED, action RETRY with Retry-After; resolves again once unpaused", async () => {
      const intent = await create();
      await pause();
      const res = await resolve(intent.intent);
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { error: "TOKEN_PAUSED", action: "RETRY", retry_after: 60 });
      assert.equal(res.headers["retry-after"], "60");
      await unpause();
      assert.equal((await resolve(intent.intent)).status, 200);
    });

    it("a blacklisted buyer is not known at resolve: USDC refuses the payment itself (nothing settles)", async () => {
      const intent = await create();
      await blacklist(payer().address);
      assert.equal((await resolve(intent.intent)).status, 200);
      // (FiatToken v2.2 still lets a blacklisted account approve; its transfers revert.)
      const error = await failedTransfer(payer(), h.chain.deployment.contracts.Splitter.address, 5_000_000n);
      assert.equal(tokenRefusal(error)?.code, "ACCOUNT_BLOCKED");
    });
  });
});
