// `npm run pay -- <intent> [account]`: pays a payment intent from one of the funded local accounts
// (approve + Splitter.pay), as a buyer's wallet would. Progress goes to stderr; stdout gets one JSON
// result: the intent paid (a link's freshly minted one for a link token), its reference, the
// transaction, the body to verify it with, and the next command.
// For the local stack only (it signs with Hardhat's public test mnemonic). Finds the stack through
// the variables `npm start` reads (API_URL or HOST/PORT, CHAIN_RPC_URL or CHAIN_PORT).
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { baseSepolia } from "viem/chains";
import { splitterAbi } from "../src/generated/contracts.js";
import { LOCAL_ROLES, localAccount } from "../dev/localchain/harness.js";
import { CHAIN_RPC_URL, accountIndex, fail, post, run } from "./lib/local-stack.js";

const [intent, accountArg] = process.argv.slice(2);
if (!intent) fail("usage: npm run pay -- <intent or link token> [account index 0–19, default 2]");
const buyer = localAccount(accountIndex(accountArg, LOCAL_ROLES.firstUser));

await run(async () => {
  const terms = await post<{
    recipient: Address;
    amount: string;
    amount_units: string;
    token: Address;
    splitter: Address;
    reference: Hex;
    intent?: string;
  }>("/v1/payments/resolve", { intent }, "resolve refused the intent");
  const chain = { ...baseSepolia, rpcUrls: { default: { http: [CHAIN_RPC_URL] } } };
  const wallet = createWalletClient({ account: buyer, chain, transport: http(CHAIN_RPC_URL, { retryCount: 0 }) });
  const reader = createPublicClient({ chain, transport: http(CHAIN_RPC_URL, { retryCount: 0 }) });
  const units = BigInt(terms.amount_units);
  console.error(`paying ${terms.amount} USDC to ${terms.recipient} from ${buyer.address}`);
  const approval = await wallet.writeContract({ address: terms.token, abi: erc20Abi, functionName: "approve", args: [terms.splitter, units] });
  await reader.waitForTransactionReceipt({ hash: approval });
  const hash = await wallet.writeContract({
    address: terms.splitter,
    abi: splitterAbi,
    functionName: "pay",
    args: [terms.token, terms.recipient, units, terms.reference],
  });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  // A link token resolves to a fresh intent of its own: that intent is the one to verify.
  const paid = terms.intent ?? intent;
  console.error(`tx_hash ${hash} (block ${receipt.blockNumber}, ${receipt.status}); verify it with POST /v1/payments/verify once final`);
  console.log(
    JSON.stringify({
      intent: paid,
      reference: terms.reference,
      tx_hash: hash,
      block_number: receipt.blockNumber.toString(),
      status: receipt.status,
      verify: { intent: paid, tx_hash: hash },
      next: `npm run refund -- ${paid} ${hash}`,
    }),
  );
  if (receipt.status !== "success") process.exitCode = 1;
});
