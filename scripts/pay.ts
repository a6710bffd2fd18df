// `npm run pay -- <intent> [account]`: pays a payment intent from one of the funded local accounts
// (approve + Splitter.pay), as a buyer's wallet would, and prints the transaction hash.
// For the local stack only (it signs with Hardhat's public test mnemonic). API_URL and CHAIN_RPC_URL
// default to `npm start`'s addresses.
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { baseSepolia } from "viem/chains";
import { splitterAbi } from "../src/generated/contracts.js";
import { LOCAL_ROLES, localAccount } from "../src/localchain/harness.js";

const [intent, accountArg] = process.argv.slice(2);
if (!intent) {
  console.error("usage: npm run pay -- <intent> [account index, default 2]");
  process.exit(2);
}
const apiUrl = process.env.API_URL ?? "http://127.0.0.1:8787";
const rpcUrl = process.env.CHAIN_RPC_URL ?? "http://127.0.0.1:8545";
const buyer = localAccount(Number(accountArg ?? LOCAL_ROLES.firstUser));

const res = await fetch(`${apiUrl}/v1/payments/resolve`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ intent }) });
const terms = (await res.json()) as { error?: string; recipient: Address; amount: string; amount_units: string; token: Address; splitter: Address; reference: Hex };
if (!res.ok) {
  console.error(`resolve refused the intent: ${res.status} ${JSON.stringify(terms)}`);
  process.exit(1);
}
const chain = { ...baseSepolia, rpcUrls: { default: { http: [rpcUrl] } } };
const wallet = createWalletClient({ account: buyer, chain, transport: http(rpcUrl) });
const reader = createPublicClient({ chain, transport: http(rpcUrl) });
const units = BigInt(terms.amount_units);
console.log(`paying ${terms.amount} USDC to ${terms.recipient} from ${buyer.address}`);
const approval = await wallet.writeContract({ address: terms.token, abi: erc20Abi, functionName: "approve", args: [terms.splitter, units] });
await reader.waitForTransactionReceipt({ hash: approval });
const hash = await wallet.writeContract({ address: terms.splitter, abi: splitterAbi, functionName: "pay", args: [terms.token, terms.recipient, units, terms.reference] });
const receipt = await reader.waitForTransactionReceipt({ hash });
console.log(`tx_hash ${hash} (block ${receipt.blockNumber}, ${receipt.status})`);
