import { TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { rpc } from "./rpc-errors.js";

/** A transaction's receipt, or null when the node has none. An RPC failure is an error, never "not found". */
export async function readReceipt(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    return rpc(() => Promise.reject(error));
  }
}

/** Whether the node knows the transaction (mined or waiting). An RPC failure is an error. */
export async function isKnownTransaction(client: PublicClient, hash: Hex): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false;
    return rpc(() => Promise.reject(error));
  }
}
