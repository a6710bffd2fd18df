import { assert } from "chai";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress, zeroAddress, type Address, type Hex } from "viem";
import { useLocalChain } from "../helpers/local-chain.js";
import { escrowCall, hashOf, holdParties, stateOf, type PaymentInfo } from "../helpers/holds.js";
import { expectRevert } from "../helpers/reverts.js";
import { balanceOf } from "../helpers/tx.js";
import { eoaSigner, X402_NETWORK } from "../helpers/x402-parties.js";

/** Commerce Payments v1.0's escrow, which `@x402/evm` also accepts (with its own collector). */
const V1_0_ESCROW: Address = "0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff";

/** The auth-capture payload `@x402/evm`'s client returns for ERC-3009. */
interface AuthCapturePayload {
  authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
  signature: Hex;
  salt: Hex;
}

/**
 * Proof of compatibility, not only of behaviour: what `@x402/evm`'s `AuthCaptureEvmScheme` client
 * builds and a local account signs (the PaymentInfo hash as ERC-3009 nonce, the
 * `ReceiveWithAuthorization` to the collector) is accepted by the stand-in at the canonical
 * addresses on the local chain, with Circle's USDC.
 */
describe("AuthCaptureEscrow (the stand-in) accepts what @x402/evm's auth-capture client signs", () => {
  const local = useLocalChain();

  /** Requirements as a resource server offering a hold would send them (DESIGN v7's `extra`). */
  const requirementsFor = async (authCaptureEscrow: Address | undefined): Promise<PaymentRequirements> => {
    const chain = local.chain;
    const p = holdParties(chain);
    const head = Number((await chain.publicClient.getBlock()).timestamp);
    return {
      scheme: "auth-capture",
      network: X402_NETWORK,
      amount: "50000000",
      asset: p.usdc,
      payTo: p.receiver.address,
      maxTimeoutSeconds: 300,
      extra: {
        ...chain.deployment.token.eip712,
        ...(authCaptureEscrow ? { authCaptureEscrow } : {}),
        captureAuthorizer: p.operator.address,
        feeRecipient: p.feeReceiver,
        captureDeadline: head + 3600,
        refundDeadline: head + 86_400,
        minFeeBps: 200,
        maxFeeBps: 200,
      },
    };
  };

  /** The client's payload, and the PaymentInfo the operator rebuilds from it and the requirements. */
  const clientPays = async (requirements: PaymentRequirements) => {
    const chain = local.chain;
    const p = holdParties(chain);
    const scheme = new AuthCaptureEvmScheme(eoaSigner(p.payer, chain.publicClient));
    const { payload } = await scheme.createPaymentPayload(2, requirements);
    const paid = payload as unknown as AuthCapturePayload;
    const extra = requirements.extra as Record<string, number | string>;
    const info: PaymentInfo = {
      operator: getAddress(extra.captureAuthorizer as string),
      payer: getAddress(paid.authorization.from),
      receiver: getAddress(requirements.payTo),
      token: getAddress(requirements.asset),
      maxAmount: BigInt(paid.authorization.value),
      preApprovalExpiry: Number(paid.authorization.validBefore),
      authorizationExpiry: extra.captureDeadline as number,
      refundExpiry: extra.refundDeadline as number,
      minFeeBps: extra.minFeeBps as number,
      maxFeeBps: extra.maxFeeBps as number,
      feeReceiver: getAddress(extra.feeRecipient as string),
      salt: BigInt(paid.salt),
    };
    return { paid, info };
  };

  for (const [label, escrow] of [
    ["naming the v1.1 escrow", "deployment"],
    ["naming no escrow (the client's default)", undefined],
  ] as const) {
    it(`${label}: the client's nonce is the stand-in's payer-agnostic hash, its signature to the canonical collector authorizes the hold, and the hold captures`, async () => {
      const chain = local.chain;
      const p = holdParties(chain);
      const { paid, info } = await clientPays(await requirementsFor(escrow ? p.escrow : undefined));
      assert.equal(getAddress(paid.authorization.to), p.collector);
      assert.equal(paid.authorization.nonce, await hashOf(chain, { ...info, payer: zeroAddress }));
      const before = await balanceOf(chain, p.usdc, p.payer.address);
      await escrowCall(chain, p.operator, { functionName: "authorize", args: [info, 40_000_000n, p.collector, paid.signature] });
      assert.equal(await balanceOf(chain, p.usdc, p.payer.address), before - 40_000_000n);
      await escrowCall(chain, p.operator, { functionName: "capture", args: [info, 30_000_000n, 600_000n, p.feeReceiver] });
      assert.deepEqual(await stateOf(chain, info), { collected: true, capturable: 10_000_000n, refundable: 30_000_000n });
    });
  }

  it("on a fork (FORK_URL) carrying Commerce Payments' code: it is v1.1 by behaviour (an out-of-range fee amount reverts FeeAmountOutOfRange), and a hold authorizes 50.00, captures 30.00 and 15.00, voids the rest", async function () {
    const chain = local.chain;
    if (!chain.fork) {
      console.log("      (skipped: no fork given, FORK_URL; the stand-in ran the flow above)");
      this.skip();
    }
    if (!chain.authCapture || chain.authCapture.standIn) {
      console.log("      (skipped: the fork carries no Commerce Payments code at the canonical addresses, only the project's stand-in: a local upstream)");
      this.skip();
    }
    const p = holdParties(chain);
    const { paid, info } = await clientPays(await requirementsFor(p.escrow));
    const balances = () => Promise.all([p.payer.address, p.receiver.address, p.feeReceiver].map((a) => balanceOf(chain, p.usdc, a)));
    const before = await balances();
    await escrowCall(chain, p.operator, { functionName: "authorize", args: [info, info.maxAmount, p.collector, paid.signature] });
    // The probe: v1.0 has no capture naming a fee amount; v1.1 refuses one off the bounds by name.
    await expectRevert(escrowCall(chain, p.operator, { functionName: "capture", args: [info, 30_000_000n, 1n, p.feeReceiver] }), "FeeAmountOutOfRange", [
      1n,
      600_000n,
      600_000n,
    ]);
    await escrowCall(chain, p.operator, { functionName: "capture", args: [info, 30_000_000n, 600_000n, p.feeReceiver] });
    await escrowCall(chain, p.operator, { functionName: "capture", args: [info, 15_000_000n, 300_000n, p.feeReceiver] });
    await escrowCall(chain, p.operator, { functionName: "void", args: [info] });
    const after = await balances();
    assert.deepEqual(
      after.map((b, i) => b - before[i]!),
      [-45_000_000n, 44_100_000n, 900_000n],
    );
  });

  it("a payload the client built for the v1.0 escrow does not authorize at v1.1: the escrow and collector addresses are in what the payer signed", async () => {
    const chain = local.chain;
    const p = holdParties(chain);
    const { paid, info } = await clientPays(await requirementsFor(V1_0_ESCROW));
    assert.notEqual(getAddress(paid.authorization.to), p.collector);
    await expectRevert(escrowCall(chain, p.operator, { functionName: "authorize", args: [info, 40_000_000n, p.collector, paid.signature] }), "Error", [
      "FiatTokenV2: invalid signature",
    ]);
  });
});
