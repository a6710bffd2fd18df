import { erc20Abi, getAbiItem, isAddressEqual, type Address, type PublicClient } from "viem";
import { rpc } from "../chain/rpc-errors.js";
import { deployBlockOf, type LiveDeployment } from "../deployments.js";
import { depositForwarderAbi } from "../generated/contracts.js";
import { RangeCap, readBackwards } from "./log-ranges.js";

const TRANSFER = getAbiItem({ abi: erc20Abi, name: "Transfer" });
export const PAID_IN_EXCESS = getAbiItem({ abi: depositForwarderAbi, name: "PaidInExcess" });

/** Ranges one depositor search asks at most (refused ones included) unless the caller says otherwise. */
export const DEPOSITOR_MAX_READS = 64;

export interface DepositorChain {
  client: PublicClient;
  deployment: LiveDeployment;
}

/** A settlement's place: its `Paid` log. */
export interface SettledAt {
  blockNumber: bigint;
  logIndex: number;
}

/** One sender's transfers into a payment address, added up: what `PAYER_UNKNOWN` lists. */
export interface Sender {
  address: Address;
  amountUnits: bigint;
}

/** Who paid a payment address, or why the chain cannot say (and who sent what, for the merchant to name one). */
export type Depositor = { payer: Address } | { payer: null; senders: Sender[]; reason: string };

/** A transfer into a payment address, where the chain put it. */
export interface DepositTransfer {
  from: Address;
  value: bigint;
  blockNumber: bigint;
  logIndex: number;
}

/**
 * The payer among the transfers that made up a payment, in chain order: the one sender whose own
 * transfers reach the amount first. A stranger's part, before or after, never makes them the payer:
 * only paying the whole amount themselves does, and then they are the buyer. `unseen` units arrived
 * before these transfers but were not read: a sender among them could have reached the amount
 * earlier, so a payer is named only where no one could have (the most any sender held at each step,
 * with all of `unseen`, stays short of the amount). Where no one sender reached it, every sender
 * with what they sent.
 */
export function payerAmong(chainOrder: readonly DepositTransfer[], amount: bigint, unseen = 0n): Depositor {
  const sent = new Map<Address, bigint>();
  let most = 0n;
  for (const t of chainOrder) {
    // `most` stays below `amount` (a total that reaches it returns first): with nothing unseen this never breaks.
    if (most + unseen >= amount) break;
    const total = (sent.get(t.from) ?? 0n) + t.value;
    sent.set(t.from, total);
    if (total >= amount) return { payer: t.from };
    // Stryker disable next-line ConditionalExpression,EqualityOperator: `most` feeds only the test above, which first holds at the step after the total that raised it, when that total is also the latest; `>=` sets an equal value
    if (total > most) most = total;
  }
  return {
    payer: null,
    senders: sendersOf(chainOrder),
    reason: unseen > 0n ? "the transfers into the payment address were not all found" : "no one sender's transfers reached the amount",
  };
}

/**
 * Who paid a payment settled from its payment address (the `Paid` event names the address itself).
 * The settlement moved the address's whole balance (`moved`: the amount, or more, as `PaidInExcess`
 * says), which is exactly the transfers into the address since it was last emptied (only a forwarder
 * ever takes funds out, and it takes them all). Those transfers are read backwards from the
 * settlement, down to the deployment's first block at the most, until they add up to `moved` or the
 * ones read already name the payer whatever came before them ({@link payerAmong}). For an exchange
 * withdrawal the payer is the exchange's wallet, the only sender the chain knows.
 */
export async function depositorOf(
  chain: DepositorChain,
  depositAddress: Address,
  settledAt: SettledAt,
  amount: bigint,
  options: { moved?: bigint; cap?: RangeCap; maxReads?: number } = {},
): Promise<Depositor> {
  const moved = options.moved ?? (await movedAt(chain, depositAddress, settledAt, amount));
  const before = (l: { blockNumber: bigint; logIndex: number }) =>
    l.blockNumber < settledAt.blockNumber || (l.blockNumber === settledAt.blockNumber && l.logIndex < settledAt.logIndex);
  const floor = deployBlockOf(chain.deployment);
  const { found } = await readBackwards({
    cap: options.cap ?? new RangeCap(),
    top: settledAt.blockNumber,
    // Stryker disable next-line EqualityOperator: at `floor === settledAt.blockNumber` either side is the same block
    floor: floor < settledAt.blockNumber ? floor : settledAt.blockNumber,
    maxReads: options.maxReads ?? DEPOSITOR_MAX_READS,
    read: async (from, to) => {
      const logs = await rpc(() =>
        chain.client.getLogs({
          address: chain.deployment.token.address,
          event: TRANSFER,
          args: { to: depositAddress },
          fromBlock: from,
          toBlock: to,
          strict: true,
        }),
      );
      return logs
        .filter((l) => before(l) && !isAddressEqual(l.args.from, depositAddress))
        .map((l): DepositTransfer => ({ from: l.args.from, value: l.args.value, blockNumber: l.blockNumber, logIndex: l.logIndex }));
    },
    enough: (transfers) => {
      const { balance, sum } = balanceOf(transfers, moved);
      return sum >= moved || payerAmong(balance, amount, moved - sum).payer !== null;
    },
  });
  const { balance, sum } = balanceOf(found, moved);
  if (sum > moved) {
    return { payer: null, senders: sendersOf(balance), reason: "the transfers into the payment address do not add up to what its settlement moved" };
  }
  return payerAmong(balance, amount, moved - sum);
}

/** Each sender once, in the order of their first transfer, with what they sent in all. */
function sendersOf(transfers: readonly DepositTransfer[]): Sender[] {
  const sent = new Map<Address, bigint>();
  for (const t of transfers) sent.set(t.from, (sent.get(t.from) ?? 0n) + t.value);
  return [...sent].map(([address, amountUnits]) => ({ address, amountUnits }));
}

/** The newest transfers that make up `moved` (all of them, where they fall short), in chain order. */
function balanceOf(found: readonly DepositTransfer[], moved: bigint): { balance: DepositTransfer[]; sum: bigint } {
  const newestFirst = [...found].sort((a, b) => (a.blockNumber === b.blockNumber ? b.logIndex - a.logIndex : Number(b.blockNumber - a.blockNumber)));
  const balance: DepositTransfer[] = [];
  let sum = 0n;
  for (const t of newestFirst) {
    if (sum >= moved) break;
    balance.push(t);
    sum += t.value;
  }
  return { balance: balance.reverse(), sum };
}

/** What the settlement at `settledAt` moved: `PaidInExcess`'s figure just before its `Paid`, else the amount. */
async function movedAt(chain: DepositorChain, depositAddress: Address, settledAt: SettledAt, amount: bigint): Promise<bigint> {
  const logs = await rpc(() =>
    chain.client.getLogs({ address: depositAddress, event: PAID_IN_EXCESS, fromBlock: settledAt.blockNumber, toBlock: settledAt.blockNumber, strict: true }),
  );
  const excess = logs.find((l) => l.logIndex === settledAt.logIndex - 1);
  return excess ? excess.args.moved : amount;
}
