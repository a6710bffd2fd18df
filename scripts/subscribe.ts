// `npm run subscribe -- <setup_token> [account]`: plays the payer's wallet for a setup token on the
// local stack: resolves the terms, signs the exact typed data with a funded local account, approves
// the recurring-charge contract for 12 periods, and prints the payer and signature for finalize.
// For the local stack only (Hardhat's public test mnemonic). Finds the stack as `npm run pay` does.
import { createPublicClient, createWalletClient, erc20Abi, http, type Address } from "viem";
import { baseSepolia } from "viem/chains";
import { LOCAL_ROLES, localAccount } from "../dev/localchain/harness.js";
import { TERMS_TYPES, termsFromWireMessage } from "../src/recurring/terms.js";
import { CHAIN_RPC_URL, accountIndex, fail, post, run } from "./lib/local-stack.js";

const [setupToken, accountArg] = process.argv.slice(2);
if (!setupToken) fail("usage: npm run subscribe -- <setup_token> [account index 0–19, default 2]");
const payer = localAccount(accountIndex(accountArg, LOCAL_ROLES.firstUser));

await run(async () => {
  const terms = await post<{
    amount: string;
    amount_units: string;
    period: number;
    recipient: Address;
    token: Address;
    contract: Address;
    max_gas_reimbursement: string;
    typed_data: { domain: never; types: never; message: Record<string, string | number> };
  }>("/v1/subscriptions/resolve", { setup_token: setupToken }, "resolve refused the setup token");
  const message = termsFromWireMessage(terms.typed_data.message, payer.address);
  console.error(`signing: ${terms.amount} USDC every ${terms.period} s to ${terms.recipient}, payer ${payer.address}`);
  const signature = await payer.signTypedData({ domain: terms.typed_data.domain, types: TERMS_TYPES, primaryType: "Terms", message });

  const chain = { ...baseSepolia, rpcUrls: { default: { http: [CHAIN_RPC_URL] } } };
  const wallet = createWalletClient({ account: payer, chain, transport: http(CHAIN_RPC_URL, { retryCount: 0 }) });
  const reader = createPublicClient({ chain, transport: http(CHAIN_RPC_URL, { retryCount: 0 }) });
  const allowance = (BigInt(terms.amount_units) + BigInt(terms.max_gas_reimbursement)) * 12n;
  const hash = await wallet.writeContract({ address: terms.token, abi: erc20Abi, functionName: "approve", args: [terms.contract, allowance] });
  await reader.waitForTransactionReceipt({ hash });
  console.error(`approved ${allowance} units to ${terms.contract}`);
  console.log(JSON.stringify({ setup_token: setupToken, payer: payer.address, signature }));
});
