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
  const moved = authorizationTransfer(receipt, p.token, p.nonce, p.payer);
  return moved !== null && isAddressEqual(moved.to, p.to) && moved.value === p.amount;
}

/**
 * The transfer an authorization made in `receipt`: the token's `Transfer` log right after its
 * `AuthorizationUsed(authorizer, nonce)` (USDC marks the nonce used, then moves the funds, in one
 * call), from the authorizer. Null when the nonce was not used there, or used without moving funds
 * from the authorizer (cancelled). Any other transfer in the transaction is not this authorization's:
 * one plain transfer must not prove several authorizations.
 */
export function authorizationTransfer(
  receipt: TransactionReceipt,
  token: Address,
  nonce: Hex,
  authorizer?: Address,
): { from: Address; to: Address; value: bigint } | null {
  const ofToken = receipt.logs.filter((l) => isAddressEqual(l.address, token));
  const use = parseEventLogs({ abi: [AUTHORIZATION_USED], logs: ofToken, strict: true }).find(
    (u) => u.args.nonce.toLowerCase() === nonce.toLowerCase() && (authorizer === undefined || isAddressEqual(u.args.authorizer, authorizer)),
  );
  if (!use) return null;
  const next = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: ofToken, strict: true }).find((t) => t.logIndex === use.logIndex + 1);
  if (!next || !isAddressEqual(next.args.from, use.args.authorizer)) return null;
  return { from: next.args.from, to: next.args.to, value: next.args.value };
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
