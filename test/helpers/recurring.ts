import { assert } from "chai";
import { encodeFunctionData, erc20Abi, hashTypedData, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { testSmartAccountAbi } from "../../src/generated/contracts.js";
import { termsFromWireMessage } from "../../src/recurring/terms.js";
import { formatAmount } from "../../src/money.js";
import type { ServiceHarness } from "./service.js";
import { approve, send } from "./tx.js";
import type supertest from "supertest";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";

export interface ResolvedTerms {
  typed_data: { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, string | number> };
  [k: string]: unknown;
}

/** The typed data from resolve with `payer` filled and integers as bigints, as a wallet signs it. */
export function walletTypedData(resolved: ResolvedTerms, payer: Address) {
  return {
    domain: resolved.typed_data.domain as never,
    types: resolved.typed_data.types as never,
    primaryType: "Terms" as const,
    message: termsFromWireMessage(resolved.typed_data.message, payer),
  };
}

export function typedDataDigest(resolved: ResolvedTerms, payer: Address): Hex {
  return hashTypedData(walletTypedData(resolved, payer) as never);
}

/** Creates, resolves, signs (by `signer` for `payer`) and finalizes a subscription. */
export async function subscribe(
  h: ServiceHarness,
  signer: HDAccount,
  options: { payer?: Address; recipient: Address; amount?: string; period?: number; end?: number },
) {
  const payer = options.payer ?? signer.address;
  const created = await h.api.post("/v1/subscriptions").send({
    recipient: options.recipient,
    amount: options.amount ?? "10",
    period: options.period ?? 3600,
    ...(options.end !== undefined ? { end: options.end } : {}),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
  assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
  const signature = await signer.signTypedData(walletTypedData(resolved.body, payer) as never);
  const finalized = await h.api.post("/v1/subscriptions/finalize").send({ setup_token: created.body.setup_token, payer, signature });
  assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
  return {
    created: created.body,
    resolved: resolved.body as ResolvedTerms,
    signature,
    subscription: finalized.body.subscription as string,
    id: finalized.body.subscription_id as Hex,
    finalized: finalized.body,
  };
}

/** Sets the payer's allowance to what an approve session asks for (the checkout's approve page). */
export async function approveThroughSession(h: ServiceHarness, payer: HDAccount, subscription: string, viaAccount?: Address) {
  const session = await h.api.post("/v1/subscriptions/approve/session").send({ subscription });
  assert.equal(session.status, 200, JSON.stringify(session.body));
  const approval = await h.api.post("/v1/subscriptions/approve/resolve").send({ approve_token: session.body.approve_token });
  assert.equal(approval.status, 200, JSON.stringify(approval.body));
  const { token, spender, required_units } = approval.body as { token: Address; spender: Address; required_units: string };
  if (viaAccount) {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, BigInt(required_units) * 10n] });
    await send(h.chain, payer, { address: viaAccount, abi: testSmartAccountAbi, functionName: "execute", args: [token, 0n, data] });
  } else {
    await send(h.chain, payer, { address: token, abi: erc20Abi, functionName: "approve", args: [spender, BigInt(required_units) * 10n] });
  }
  return approval.body;
}

/** Sends prepared calldata (`to`, `data`) from `from`, directly or through a smart account it owns. */
export async function sendPrepared(h: ServiceHarness, from: HDAccount, prepared: { to: Address; data: Hex }, viaAccount?: Address) {
  if (viaAccount)
    return send(h.chain, from, { address: viaAccount, abi: testSmartAccountAbi, functionName: "execute", args: [prepared.to, 0n, prepared.data] });
  const hash = await h.chain.wallet(from).sendTransaction({ account: from, chain: h.chain.chain, to: prepared.to, data: prepared.data });
  const receipt = await h.chain.publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

/**
 * Service settings under which a charge's gas (~180,000 gas at the chain's next base fee + the
 * default tip) costs about 0.50: more than the network fee (0.10), within a signed maximum of 1.00.
 */
export async function reimbursingEnv(h: ServiceHarness): Promise<Record<string, string>> {
  const history = await h.chain.publicClient.getFeeHistory({ blockCount: 1, rewardPercentiles: [] });
  const perGas = history.baseFeePerGas.at(-1)! + 1_000_000n;
  const unitsPerEth = (500_000n * 10n ** 18n) / (180_000n * perGas);
  return { GAS_PRICE_USDC_PER_ETH: formatAmount(unitsPerEth), MAX_GAS_REIMBURSEMENT: "1" };
}

/** `count` subscriptions of one payer (its allowance set once, large), through `api`. */
export async function manySubscriptions(h: Pick<ServiceHarness, "chain">, api: supertest.Agent, count: number, extra: Record<string, unknown> = {}) {
  const payer = h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const subscriptions: Array<{ subscription: string; id: Hex }> = [];
  for (let i = 0; i < count; i++) {
    const created = await api.post("/v1/subscriptions").send({ recipient: merchant.address, amount: "1", period: 3600, ...extra });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const resolved = await api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
    const signature = await payer.signTypedData(walletTypedData(resolved.body as ResolvedTerms, payer.address) as never);
    const finalized = await api.post("/v1/subscriptions/finalize").send({ setup_token: created.body.setup_token, payer: payer.address, signature });
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
    subscriptions.push({ subscription: finalized.body.subscription, id: finalized.body.subscription_id });
  }
  await approve(h.chain, payer, h.chain.deployment.token.address, h.chain.deployment.contracts.RecurringCharges.address, 10n ** 12n);
  return subscriptions;
}
