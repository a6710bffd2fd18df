// `npm run refund -- <refund_token>` or `npm run refund -- <intent> <tx_hash> [amount units]`:
// plays the merchant's wallet on the local stack. It prepares the refund when given the payment
// (a full refund by default), resolves the refund token, sends the token transfer to the payer from
// the local account that is the merchant, and prints what `/v1/refunds/verify` needs.
// For the local stack only (Hardhat's public test mnemonic). Finds the stack as `npm run pay` does.
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { baseSepolia } from "viem/chains";
import { LOCAL_ACCOUNT_COUNT, localAccount } from "../dev/localchain/harness.js";
import { CHAIN_RPC_URL, fail, post, run } from "./lib/local-stack.js";

const args = process.argv.slice(2);
const usage = "usage: npm run refund -- <refund_token>   or   npm run refund -- <intent> <tx_hash> [amount units, default: all the buyer paid]";
if (args.length === 0 || args.length > 3) fail(usage);
const [first, txHash, amountArg] = args as [string, string | undefined, string | undefined];
if (txHash !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(txHash)) fail(`tx_hash must be 0x and 64 hex digits, not ${JSON.stringify(txHash)}`);
if (amountArg !== undefined && !/^[1-9][0-9]*$/.test(amountArg)) fail(`amount must be a positive integer of micro-units, not ${JSON.stringify(amountArg)}`);

await run(async () => {
  let refundToken = first;
  if (txHash !== undefined) {
    let amount = amountArg;
    if (amount === undefined) {
      const verdict = await post<{ valid: boolean; amount?: string; code?: string }>(
        "/v1/payments/verify",
        { intent: first, tx_hash: txHash },
        "verify refused the payment",
      );
      if (!verdict.valid) fail(`the payment is not settled (${verdict.code}): nothing to refund yet`);
      amount = BigInt(verdict.amount!.replace(".", "")).toString();
    }
    const prepared = await post<{ refund_token: string }>("/v1/refunds/prepare", { intent: first, tx_hash: txHash, amount }, "prepare refused the refund");
    refundToken = prepared.refund_token;
  }
  const refund = await post<{ token: Address; merchant: Address; payer: Address; amount: string; amount_units: string }>(
    "/v1/refunds/resolve",
    { refund_token: refundToken },
    "resolve refused the refund token",
  );
  const index = Array.from({ length: LOCAL_ACCOUNT_COUNT }, (_, i) => i).find((i) => localAccount(i).address.toLowerCase() === refund.merchant.toLowerCase());
  if (index === undefined) fail(`the merchant ${refund.merchant} is not a local account: its own wallet must send this refund`);
  const merchant = localAccount(index);
  const chain = { ...baseSepolia, rpcUrls: { default: { http: [CHAIN_RPC_URL] } } };
  const wallet = createWalletClient({ account: merchant, chain, transport: http(CHAIN_RPC_URL, { retryCount: 0 }) });
  const reader = createPublicClient({ chain, transport: http(CHAIN_RPC_URL, { retryCount: 0 }) });
  console.error(`refunding ${refund.amount} USDC from ${merchant.address} (#${index}) to ${refund.payer}`);
  const hash: Hex = await wallet.writeContract({
    address: refund.token,
    abi: erc20Abi,
    functionName: "transfer",
    args: [refund.payer, BigInt(refund.amount_units)],
  });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") fail(`the refund transfer ${hash} reverted`);
  console.error(`refund_tx_hash ${hash} (block ${receipt.blockNumber}); verify with /v1/refunds/verify once settled:`);
  console.log(
    JSON.stringify({ ...(txHash !== undefined ? { intent: first, tx_hash: txHash } : {}), refund_amount: refund.amount_units, refund_tx_hash: hash }),
  );
});
