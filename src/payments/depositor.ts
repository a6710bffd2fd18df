import { erc20Abi, getAbiItem, isAddressEqual, type Address } from "viem";
import { rpc } from "../chain/rpc-errors.js";
import { DomainError } from "../errors.js";
import type { PaymentChain } from "./verify.js";

/** Blocks per log query (what public RPC providers accept with an address and topic filter). */
const WINDOW_BLOCKS = 2_000n;
/** How far before its settlement a deposit is looked for: about 55 hours of Base's 2 s blocks. */
const LOOKBACK_BLOCKS = 100_000n;
const TRANSFER = getAbiItem({ abi: erc20Abi, name: "Transfer" });

/**
 * Who paid a payment settled from its payment address: the `Paid` event names the address itself,
 * so the payer is read from the token's transfers into it before the settlement (`settledAt`). The
 * sender of the most (the earliest on a tie), when a deposit came in parts from several wallets. For
 * an exchange withdrawal that is the exchange's wallet, the only sender the chain knows.
 */
export async function depositorOf(chain: PaymentChain, depositAddress: Address, settledAt: { blockNumber: bigint; logIndex: number }): Promise<Address> {
  const sent = new Map<Address, bigint>();
  const floor = settledAt.blockNumber > LOOKBACK_BLOCKS ? settledAt.blockNumber - LOOKBACK_BLOCKS : 0n;
  for (let to = settledAt.blockNumber; to >= floor; to -= WINDOW_BLOCKS) {
    const from = to - WINDOW_BLOCKS + 1n > floor ? to - WINDOW_BLOCKS + 1n : floor;
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
    // In chain order, and only what came before the settlement's own event.
    for (const log of logs.filter((l) => l.blockNumber < settledAt.blockNumber || l.logIndex < settledAt.logIndex)) {
      if (isAddressEqual(log.args.from, depositAddress)) continue;
      sent.set(log.args.from, (sent.get(log.args.from) ?? 0n) + log.args.value);
    }
    if (sent.size > 0) break; // the deposit's transfers sit together, just before the settlement
    if (from === floor) break;
  }
  let payer: Address | undefined;
  for (const [sender, value] of sent) if (payer === undefined || value > sent.get(payer)!) payer = sender;
  if (!payer) throw new DomainError("PAYMENT_MISMATCH", { detail: "no transfer into the payment address before its settlement" });
  return payer;
}
