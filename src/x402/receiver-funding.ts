import { erc20Abi, getAddress, isAddressEqual, parseEventLogs, type Address, type Log } from "viem";

/**
 * The addresses a settled transaction paid out of: the senders of the token's `Transfer` logs in
 * it. A receiver among them had a payment through it settle (an x402 settlement to it, or a split of
 * what reached it, each sent by the relayer and mined), which is what makes it funded: kept for good
 * and walked by the backstop. A transfer into a receiver funds nothing by itself (a stranger's 50
 * units would otherwise free a place under the unfunded cap for the price of a fee unit): only a
 * split, sent when the balance's fee pays for it, or a settlement does.
 */
export function paidOutOf(logs: readonly Log[], token: Address): Address[] {
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: logs as Log[], strict: true });
  const from = new Set<Address>();
  for (const t of transfers) if (isAddressEqual(t.address, token)) from.add(getAddress(t.args.from));
  return [...from];
}
