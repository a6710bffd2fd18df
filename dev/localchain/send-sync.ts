import type { Hex } from "viem";
import type { NodeEvents } from "./base-node-types.js";
import type { SenderPool } from "./node-pool.js";

/** EIP-7966's error for a transaction accepted into the pool but not processed within the timeout. */
export const SYNC_TIMEOUT_CODE = 4;
/** How long eth_sendRawTransactionSync waits when the caller names no timeout, and at most. */
export const SYNC_DEFAULT_TIMEOUT_MS = 6_000;
export const SYNC_MAX_TIMEOUT_MS = 60_000;

/** eth_sendRawTransactionSync (EIP-7966): the receipt once mined, or error 4 with the hash after the timeout. */
export async function sendSync(
  params: unknown[],
  pool: Pick<SenderPool, "admit">,
  readReceipt: (hash: Hex) => Promise<unknown>,
  node: NodeEvents,
): Promise<unknown> {
  const hash = await pool.admit(params[0] as Hex);
  const asked = params[1] === undefined || params[1] === null ? SYNC_DEFAULT_TIMEOUT_MS : Number(params[1]);
  const timeoutMs = Number.isFinite(asked) && asked > 0 ? Math.min(asked, SYNC_MAX_TIMEOUT_MS) : SYNC_DEFAULT_TIMEOUT_MS;
  const find = () => readReceipt(hash);
  const receipt = await new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => finish(null), timeoutMs);
    const off = node.onBlock(() => void find().then((r) => r && finish(r), fail));
    const finish = (r: unknown) => {
      clearTimeout(timer);
      off();
      resolve(r);
    };
    const fail = (error: unknown) => {
      clearTimeout(timer);
      off();
      reject(error);
    };
    void find().then((r) => r && finish(r), fail);
  });
  if (receipt) return receipt;
  throw Object.assign(new Error(`the transaction was added to the pool but not processed within ${timeoutMs} ms`), {
    code: SYNC_TIMEOUT_CODE,
    data: hash,
  });
}
