import { assert } from "chai";
import { getAddress, toHex, zeroHash } from "viem";
import { erc3009PaymentCollectorAbi } from "../../src/generated/contracts.js";
import { placeAuthCaptureStandIn, placeAuthCaptureStandIns } from "../../dev/localchain/auth-capture.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { escrowCall, holdParties, holdTerms, signHold } from "../helpers/holds.js";
import { expectRevert } from "../helpers/reverts.js";

/**
 * Placing the stand-in escrow and collector at Commerce Payments' canonical addresses with
 * `hardhat_setCode` (dev/localchain/auth-capture.ts): what setCode does not carry, and what it must
 * never overwrite.
 */
describe("the auth-capture stand-in's placement on the local chain", () => {
  const local = useLocalChain();

  it("places both at the addresses deployments/84532.json names, says it is the stand-in, and writes the collector's escrow, which setCode does not carry", async () => {
    const chain = local.chain;
    const { escrow, eip3009Collector } = chain.deployment.authCapture![0]!;
    assert.deepEqual(chain.authCapture, { escrow, eip3009Collector, standIn: true });
    assert.deepEqual(
      chain.authCaptureSets,
      chain.deployment.authCapture!.map((set) => ({ escrow: set.escrow, eip3009Collector: set.eip3009Collector, standIn: true })),
      "a stand-in at every listed set",
    );
    assert.isAtLeast(chain.authCaptureSets.length, 2, "x402's later set is listed too");
    const served = await chain.publicClient.readContract({ address: eip3009Collector, abi: erc3009PaymentCollectorAbi, functionName: "authCaptureEscrow" });
    assert.equal(getAddress(served), escrow);

    // Without the storage write (code alone, as setCode leaves it) the collector serves no escrow.
    await chain.testClient.setStorageAt({ address: eip3009Collector, index: toHex(0, { size: 32 }), value: zeroHash });
    const p = holdParties(chain);
    const info = await holdTerms(chain);
    await expectRevert(
      escrowCall(chain, p.operator, { functionName: "authorize", args: [info, info.maxAmount, p.collector, await signHold(chain, p.payer, info)] }),
      "OnlyAuthCaptureEscrow",
      [],
    );
  });

  it("leaves code already at both addresses alone, and refuses to pair a stand-in with code at only one", async () => {
    const chain = local.chain;
    const { escrow, eip3009Collector } = chain.deployment.authCapture![0]!;
    const clients = { publicClient: chain.publicClient, testClient: chain.testClient };
    await chain.testClient.setCode({ address: escrow, bytecode: "0x00" });
    await chain.testClient.setCode({ address: eip3009Collector, bytecode: "0x00" });
    assert.deepEqual(await placeAuthCaptureStandIn(clients, chain.deployment.authCapture![0]!), { escrow, eip3009Collector, standIn: false });
    assert.equal(await chain.publicClient.getCode({ address: escrow }), "0x00");

    await chain.testClient.setCode({ address: eip3009Collector, bytecode: "0x" });
    let error: unknown;
    await placeAuthCaptureStandIns(clients, chain.deployment).catch((e) => (error = e));
    assert.match((error as Error).message, /code at only one/);
    assert.deepEqual(await placeAuthCaptureStandIns(clients, { authCapture: undefined }), []);
  });
});
