import { assert } from "chai";
import { encodeAbiParameters, keccak256, parseEventLogs, toHex, zeroAddress, type Address, type Hex } from "viem";
import { fiatTokenAbi, splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { expectRevert, revertOf } from "../helpers/reverts.js";
import { balanceOf, send } from "../helpers/tx.js";
import { payThrough, SPLITTER_ENTRY_POINTS, type PaymentParties, type SplitterPayment } from "../helpers/splitter-entry-points.js";

const ref = (label: string): Hex => keccak256(toHex(label));
const keyOf = (p: SplitterPayment): Hex =>
  keccak256(
    encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }], [p.token, p.recipient, p.amount, p.reference]),
  );

/**
 * One behaviour suite, run over every way into the Splitter: whichever entry point a wallet uses, a
 * payment splits the same way, emits the same `Paid`, settles its key once (whichever entry point
 * tries again), refuses the same bad payments, and leaves nothing in the contract when the token
 * refuses to move. A new entry point joins by adding a row to SPLITTER_ENTRY_POINTS.
 */
describe("Splitter: one behaviour over every pay entry point", () => {
  const local = useLocalChain();
  const setup = () => {
    const chain = local.chain;
    const parties: PaymentParties = {
      chain,
      splitter: chain.deployment.contracts.Splitter.address,
      buyer: chain.accounts[LOCAL_ROLES.firstUser]!,
      submitter: chain.accounts[LOCAL_ROLES.firstUser + 2]!,
    };
    const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
    const usdc = chain.deployment.token.address;
    const collector = chain.deployment.parameters.feeCollector;
    const payment = (overrides: Partial<SplitterPayment> = {}): SplitterPayment => ({
      token: usdc,
      recipient: merchant,
      amount: 12_345_678n,
      reference: ref("order-1"),
      ...overrides,
    });
    const balances = (accounts: Address[]) => Promise.all(accounts.map((a) => balanceOf(chain, usdc, a)));
    const settledBlock = (p: SplitterPayment) =>
      chain.publicClient.readContract({ address: parties.splitter, abi: splitterAbi, functionName: "settledBlock", args: [keyOf(p)] });
    return { chain, parties, merchant, usdc, collector, payment, balances, settledBlock };
  };

  for (const entry of SPLITTER_ENTRY_POINTS) {
    describe(entry.name, () => {
      it("moves exactly amount from the buyer: amount - fee to the recipient, the fee (2%, rounded down) to the collector, nothing kept", async () => {
        const { parties, merchant, collector, payment, balances } = setup();
        const p = payment({ amount: 1_000_049n });
        const fee = (p.amount * 200n) / 10_000n;
        const accounts = [parties.buyer.address, merchant, collector, parties.splitter];
        const before = await balances(accounts);
        const receipt = await payThrough(entry, parties, p);
        assert.equal(receipt.status, "success");
        const after = await balances(accounts);
        assert.deepEqual(
          after.map((b, i) => b - before[i]!),
          [-p.amount, p.amount - fee, fee, 0n],
        );
        assert.equal(fee, 20_000n, "2% of 1,000,049 rounds down");
      });

      it("a fee of one unit reaches the collector (2% of 50), and a payment too small for any fee (49) pays the recipient whole", async () => {
        const { parties, merchant, collector, payment, balances } = setup();
        const accounts = [parties.buyer.address, merchant, collector, parties.splitter];
        for (const [amount, fee] of [
          [50n, 1n],
          [49n, 0n],
        ] as const) {
          const before = await balances(accounts);
          await payThrough(entry, parties, payment({ amount, reference: ref(`fee-edge-${amount}`) }));
          const after = await balances(accounts);
          assert.deepEqual(
            after.map((b, i) => b - before[i]!),
            [-amount, amount - fee, fee, 0n],
            `a payment of ${amount}`,
          );
        }
      });

      it("records the settlement block and emits one Paid naming the buyer, the payment and the fee", async () => {
        const { parties, payment, settledBlock } = setup();
        const p = payment();
        const receipt = await payThrough(entry, parties, p);
        assert.equal(await settledBlock(p), receipt.blockNumber);
        const paid = parseEventLogs({ abi: splitterAbi, logs: receipt.logs, eventName: "Paid" });
        assert.equal(paid.length, 1);
        assert.equal(paid[0]!.address.toLowerCase(), parties.splitter.toLowerCase());
        assert.deepEqual(paid[0]!.args, {
          paymentKey: keyOf(p),
          paymentReference: p.reference,
          payer: await entry.payer(parties, p),
          recipient: p.recipient,
          token: p.token,
          amount: p.amount,
          fee: (p.amount * 200n) / 10_000n,
        });
      });

      it("settles the payment once: a second try through any entry point reverts AlreadySettled and pays nobody", async () => {
        const { parties, merchant, collector, payment, balances, settledBlock } = setup();
        const p = payment();
        const first = await payThrough(entry, parties, p);
        const before = await balances([merchant, collector, parties.splitter]);
        for (const again of SPLITTER_ENTRY_POINTS) {
          await expectRevert(again.send(parties, p), "AlreadySettled", [keyOf(p), first.blockNumber]);
        }
        // (A second plain transfer waits at the payment address, which forwards it: see DepositAddress.test.ts.)
        assert.deepEqual(await balances([merchant, collector, parties.splitter]), before);
        assert.equal(await settledBlock(p), first.blockNumber);
      });

      it("refuses a zero amount and the zero recipient with InvalidPayment, settling nothing", async () => {
        const { parties, payment, settledBlock } = setup();
        for (const bad of [payment({ amount: 0n }), payment({ recipient: zeroAddress })]) {
          await expectRevert(entry.send(parties, bad), "InvalidPayment", [bad.recipient, bad.amount]);
          assert.equal(await settledBlock(bad), 0n);
        }
      });

      it("settles nothing and keeps nothing when USDC is paused or the recipient is blacklisted, and pays once it clears", async () => {
        const { chain, parties, usdc, merchant, collector, payment, settledBlock, balances } = setup();
        const roles = chain.usdcRoles;
        const p = payment();
        const before = await balances([merchant, collector, parties.splitter]);
        const refusals: string[] = [];
        await send(chain, roles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "pause", args: [] });
        refusals.push(await refusalOf(entry.send(parties, p)));
        await send(chain, roles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "unpause", args: [] });
        await send(chain, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "blacklist", args: [p.recipient] });
        refusals.push(await refusalOf(entry.send(parties, p)));
        // Circle's own refusals (or, through a permit USDC refused while paused, the Splitter's named one).
        assert.includeMembers(["Pausable: paused", "PermitAllowanceTooLow"], [refusals[0]!]);
        assert.equal(refusals[1], "Blacklistable: account is blacklisted");
        assert.equal(await settledBlock(p), 0n);
        assert.deepEqual(await balances([merchant, collector, parties.splitter]), before, "nobody was paid, nothing kept");
        await send(chain, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "unBlacklist", args: [p.recipient] });
        assert.equal((await payThrough(entry, parties, p)).status, "success");
      });
    });
  }

  it("covers every function of the Splitter that changes state", () => {
    // Every function that changes state is a way to pay (the rest are views and pure helpers), but
    // forwardDeposit, which moves what is not a payment (DepositAddress.test.ts).
    const payFunctions = splitterAbi.flatMap((item) =>
      item.type === "function" && item.stateMutability === "nonpayable" && item.name !== "forwardDeposit" ? [item.name] : [],
    );
    const covered = SPLITTER_ENTRY_POINTS.map((entry) => entry.name.split(" ")[0]);
    assert.sameMembers(covered, payFunctions, "a new entry point needs a row in SPLITTER_ENTRY_POINTS");
  });
});

/** The refusal's name: the custom error, or the revert string of a token's Error(string). */
async function refusalOf(action: Promise<unknown>): Promise<string> {
  const error = await action.then(
    () => assert.fail("expected a revert"),
    (e: unknown) => e,
  );
  const decoded = revertOf(error);
  assert.ok(decoded, `expected a decodable revert, got ${(error as Error).message.split("\n")[0]}`);
  return decoded.errorName === "Error" ? String(decoded.args[0]) : decoded.errorName;
}
