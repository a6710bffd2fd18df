// `npm run subscribe -- <setup_token> [account]`: plays the payer's wallet for a setup token on the
// local stack: resolves the terms, signs the exact typed data with a funded local account, approves
// the recurring-charge contract for 12 periods, and prints the payer and signature for finalize.
// For the local stack only (Hardhat's public test mnemonic). API_URL / CHAIN_RPC_URL as for `npm run pay`.
import { createPublicClient, createWalletClient, erc20Abi, http, type Address } from "viem";
import { baseSepolia } from "viem/chains";
import { LOCAL_ROLES, localAccount } from "../src/localchain/harness.js";
import { TERMS_TYPES, termsFromWireMessage } from "../src/recurring/terms.js";

const [setupToken, accountArg] = process.argv.slice(2);
if (!setupToken) {
  console.error("usage: npm run subscribe -- <setup_token> [account index, default 2]");
  process.exit(2);
}
const apiUrl = process.env.API_URL ?? "http://127.0.0.1:8787";
const rpcUrl = process.env.CHAIN_RPC_URL ?? "http://127.0.0.1:8545";
const payer = localAccount(Number(accountArg ?? LOCAL_ROLES.firstUser));

const res = await fetch(`${apiUrl}/v1/subscriptions/resolve`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ setup_token: setupToken }) });
const terms = (await res.json()) as {
  amount: string;
  amount_units: string;
  period: number;
  recipient: Address;
  token: Address;
  contract: Address;
  max_gas_reimbursement: string;
  typed_data: { domain: never; types: never; message: Record<string, string | number> };
};
if (!res.ok) {
  console.error(`resolve refused the setup token: ${res.status} ${JSON.stringify(terms)}`);
  process.exit(1);
}
const message = termsFromWireMessage(terms.typed_data.message, payer.address);
console.error(`signing: ${terms.amount} USDC every ${terms.period} s to ${terms.recipient}, payer ${payer.address}`);
const signature = await payer.signTypedData({ domain: terms.typed_data.domain, types: TERMS_TYPES, primaryType: "Terms", message });

const chain = { ...baseSepolia, rpcUrls: { default: { http: [rpcUrl] } } };
const wallet = createWalletClient({ account: payer, chain, transport: http(rpcUrl) });
const reader = createPublicClient({ chain, transport: http(rpcUrl) });
const allowance = (BigInt(terms.amount_units) + BigInt(terms.max_gas_reimbursement)) * 12n;
const hash = await wallet.writeContract({ address: terms.token, abi: erc20Abi, functionName: "approve", args: [terms.contract, allowance] });
await reader.waitForTransactionReceipt({ hash });
console.error(`approved ${allowance} units to ${terms.contract}`);
console.log(JSON.stringify({ setup_token: setupToken, payer: payer.address, signature }));
