import { erc20Abi, isAddressEqual, parseEventLogs, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { fiatTokenAbi } from "../generated/contracts.js";
import { rpc } from "../chain/rpc-errors.js";
import { readReceipt } from "../chain/transactions.js";

/** How far before the settlement an authorization's use is looked for (x402 settles seconds after signing). */
export const AUTHORIZATION_LOOKBACK = 2_000n;
const AUTHORIZATION_USED = fiatTokenAbi.find((i) => i.type === "event" && i.name === "AuthorizationUsed")!;

/** An authorization's payment: `payer`'s EIP-3009 nonce moving `amount` of `token` to `to` (a payTo). */
export interface AuthorizationPayment {
  token: Address;
  payer: Address;
  nonce: Hex;
  to: Address;
  amount: bigint;
}

/**
 * Whether a receipt holds this authorization's use (`AuthorizationUsed(payer, nonce)`: USDC emits
 * `AuthorizationCanceled` for a cancelled one, which moved nothing) and its transfer of the amount
 * from the payer to the payTo: the proof, shared by both kinds of payTo, that the authorization paid.
 */
export function authorizationPaidIn(receipt: TransactionReceipt, p: AuthorizationPayment): boolean {
  const ofToken = receipt.logs.filter((l) => isAddressEqual(l.address, p.token));
  const used = parseEventLogs({ abi: [AUTHORIZATION_USED], logs: ofToken, strict: true }).some(
    (u) => isAddressEqual(u.args.authorizer, p.payer) && u.args.nonce.toLowerCase() === p.nonce.toLowerCase(),
  );
  const moved = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: ofToken, strict: true }).some(
    (t) => isAddressEqual(t.args.from, p.payer) && isAddressEqual(t.args.to, p.to) && t.args.value === p.amount,
  );
  return used && moved;
}

/**
 * The transaction in which this authorization paid the payTo, looked for in `[fromBlock, toBlock]`
 * (its `AuthorizationUsed` logs, then each one's receipt); null when none did.
 */
export async function findAuthorizationPayment(
  client: PublicClient,
  p: AuthorizationPayment,
  fromBlock: bigint,
  toBlock: bigint | "latest",
): Promise<TransactionReceipt | null> {
  const uses = await rpc(() =>
    client.getLogs({ address: p.token, event: AUTHORIZATION_USED, args: { authorizer: p.payer, nonce: p.nonce }, fromBlock, toBlock, strict: true }),
  );
  for (const use of uses) {
    const receipt = await readReceipt(client, use.transactionHash);
    if (receipt && authorizationPaidIn(receipt, p)) return receipt;
  }
  return null;
}

/** Whether the token has seen this authorization's nonce (used, or cancelled). */
export function authorizationUsed(client: PublicClient, token: Address, payer: Address, nonce: Hex): Promise<boolean> {
  return rpc(() => client.readContract({ address: token, abi: fiatTokenAbi, functionName: "authorizationState", args: [payer, nonce] }));
}
