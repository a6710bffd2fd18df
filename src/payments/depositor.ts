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

/** Who paid a payment address, or why the chain cannot say. */
export type Depositor = { payer: Address } | { payer: null; reason: string };

/**
 * Who paid a payment settled from its payment address (the `Paid` event names the address itself):
 * the sender whose transfers made up the payment. The settlement moved the address's whole balance
 * (`moved`: the amount, or more, as `PaidInExcess` says), which is exactly the transfers into the
 * address since it was last emptied (only a forwarder ever takes funds out, and it takes them all).
 * Those transfers are read backwards from the settlement, whatever the time between deposit and
 * settlement, down to the deployment's first block at the most. In chain order, the ones up to the
 * transfer that brought the balance to the payment's amount made up the payment; a later one (an
 * excess, a stranger's unit just before a late settlement) never does. The payer is the sender of
 * more than half the amount among them. Where no sender did (several wallets each sent a part), or
 * the transfers are not all found within `maxReads` reads, the answer says so (`payer: null`): the
 * merchant decides. For an exchange withdrawal the payer is the exchange's wallet, the only sender
 * the chain knows.
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
        .map((l) => ({ from: l.args.from, value: l.args.value, blockNumber: l.blockNumber, logIndex: l.logIndex }));
    },
    enough: (transfers) => transfers.reduce((sum, t) => sum + t.value, 0n) >= moved,
  });
  // Newest first, the transfers that make up the balance the settlement moved.
  const newestFirst = [...found].sort((a, b) => (a.blockNumber !== b.blockNumber ? (a.blockNumber > b.blockNumber ? -1 : 1) : b.logIndex - a.logIndex));
  const balance: typeof found = [];
  let sum = 0n;
  for (const t of newestFirst) {
    if (sum >= moved) break;
    balance.push(t);
    sum += t.value;
  }
  if (sum !== moved) {
    return {
      payer: null,
      reason:
        sum < moved
          ? "the transfers into the payment address were not all found"
          : "the transfers into the payment address do not add up to what its settlement moved",
    };
  }
  // In chain order, up to the transfer that completed the amount: the payment; the rest is excess.
  const sent = new Map<Address, bigint>();
  let paid = 0n;
  for (const t of balance.reverse()) {
    if (paid >= amount) break;
    sent.set(t.from, (sent.get(t.from) ?? 0n) + t.value);
    paid += t.value;
  }
  for (const [sender, value] of sent) if (value * 2n > amount) return { payer: sender };
  return { payer: null, reason: "several wallets each sent part of the amount, none most of it" };
}

/** What the settlement at `settledAt` moved: `PaidInExcess`'s figure just before its `Paid`, else the amount. */
async function movedAt(chain: DepositorChain, depositAddress: Address, settledAt: SettledAt, amount: bigint): Promise<bigint> {
  const logs = await rpc(() =>
    chain.client.getLogs({ address: depositAddress, event: PAID_IN_EXCESS, fromBlock: settledAt.blockNumber, toBlock: settledAt.blockNumber, strict: true }),
  );
  const excess = logs.find((l) => l.logIndex === settledAt.logIndex - 1);
  return excess ? excess.args.moved : amount;
}
