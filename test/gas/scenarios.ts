import { encodeFunctionData, keccak256, parseSignature, toHex } from "viem";
import { recurringChargesAbi, splitterAbi, testSmartAccountAbi, fiatTokenAbi, x402ReceiversAbi } from "../../src/generated/contracts.js";
import { signWithViem } from "../helpers/signers.js";
import { permitTypedData, receiveAuthorizationTypedData, tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import type { HDAccount } from "viem/accounts";
import { LOCAL_ROLES, localAccount, type LocalChain } from "../../dev/localchain/harness.js";
import type { Terms } from "../../src/recurring/terms.js";
import { deployTestContract } from "../helpers/deploy.js";
import { measureHoldGas } from "./holds.js";
import { chargeAsRelayer, currentPeriod, makeTerms, relayerOf, signTerms } from "../helpers/subscriptions.js";
import { approve, send } from "../helpers/tx.js";

/** The chain time the measurements start at (unix seconds, 2096). */
const GAS_EPOCH = 4_000_000_000n;

/** Gas used per operation, measured from receipts on the local chain. */
export type GasFigures = Record<string, number>;

/**
 * Runs each operation once in a steady state (every account involved already holds the token, so
 * no balance slot is created from zero; allowances are exact, as the checkout sets them) and
 * returns the gas each receipt reports.
 */
export async function measureGas(chain: LocalChain): Promise<GasFigures> {
  const { deployment } = chain;
  const splitter = deployment.contracts.Splitter.address;
  const recurring = deployment.contracts.RecurringCharges.address;
  const usdc = deployment.token.address;
  const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const submitter = chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const ref = (s: string) => keccak256(toHex(s));
  const figures: GasFigures = {};
  // Fixed times, so every signature and calldata byte (and so the gas) is the same on every run.
  await chain.testClient.setNextBlockTimestamp({ timestamp: GAS_EPOCH });
  await chain.mine(1);
  const deadline = GAS_EPOCH + 1_000_000n;

  // Warm-up: the fee collector receives its first fee (its balance slot is created here).
  await approve(chain, buyer, usdc, splitter, 1_000_000n);
  await send(chain, buyer, { address: splitter, abi: splitterAbi, functionName: "pay", args: [usdc, merchant.address, 1_000_000n, ref("warm-up")] });

  await approve(chain, buyer, usdc, splitter, 25_000_000n);
  figures["pay (allowance)"] = Number(
    (await send(chain, buyer, { address: splitter, abi: splitterAbi, functionName: "pay", args: [usdc, merchant.address, 25_000_000n, ref("allowance")] }))
      .gasUsed,
  );

  const nonce = await chain.publicClient.readContract({ address: usdc, abi: fiatTokenAbi, functionName: "nonces", args: [buyer.address] });
  const permit = parseSignature(
    await signWithViem(
      buyer,
      permitTypedData(tokenDomain(84532, usdc, chain.deployment.token.eip712), {
        owner: buyer.address,
        spender: splitter,
        value: 25_000_000n,
        nonce,
        deadline,
      }),
    ),
  );
  figures["pay (permit)"] = Number(
    (
      await send(chain, buyer, {
        address: splitter,
        abi: splitterAbi,
        functionName: "payWithPermit",
        args: [usdc, merchant.address, 25_000_000n, ref("permit"), deadline, Number(permit.v), permit.r, permit.s],
      })
    ).gasUsed,
  );

  const authNonce = await chain.publicClient.readContract({
    address: splitter,
    abi: splitterAbi,
    functionName: "authorizationNonce",
    args: [merchant.address, ref("3009")],
  });
  const auth = parseSignature(
    await signWithViem(
      buyer,
      receiveAuthorizationTypedData(tokenDomain(84532, usdc, chain.deployment.token.eip712), {
        from: buyer.address,
        to: splitter,
        value: 25_000_000n,
        validAfter: 0n,
        validBefore: deadline,
        nonce: authNonce,
      }),
    ),
  );
  figures["pay (EIP-3009)"] = Number(
    (
      await send(chain, submitter, {
        address: splitter,
        abi: splitterAbi,
        functionName: "payWithAuthorization",
        args: [usdc, buyer.address, merchant.address, 25_000_000n, ref("3009"), 0n, deadline, Number(auth.v), auth.r, auth.s],
      })
    ).gasUsed,
  );

  // A payment address: a plain transfer to it (the buyer's own transaction, not counted), then the
  // settlement, which creates the address's forwarder for the first time and self-destructs it.
  const depositArgs = [usdc, merchant.address, 25_000_000n, ref("deposit")] as const;
  const deposit = await chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "depositAddress", args: depositArgs });
  await send(chain, buyer, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [deposit, 25_000_000n] });
  figures["settle deposit (first use)"] = Number(
    (await send(chain, submitter, { address: splitter, abi: splitterAbi, functionName: "settleDeposit", args: depositArgs })).gasUsed,
  );

  // x402: the buyer's TransferWithAuthorization to a fresh payment address, submitted with the
  // settlement in one transaction (the facilitator's settle), the forwarder created for the first time.
  const x402Args = [usdc, merchant.address, 25_000_000n, ref("x402")] as const;
  const payTo = await chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "depositAddress", args: x402Args });
  const x402Nonce = ref("x402 nonce");
  const x402Signature = await signWithViem(
    buyer,
    transferAuthorizationTypedData(tokenDomain(84532, usdc, chain.deployment.token.eip712), {
      from: buyer.address,
      to: payTo,
      value: 25_000_000n,
      validAfter: 0n,
      validBefore: deadline,
      nonce: x402Nonce,
    }),
  );
  figures["x402 settlement"] = Number(
    (
      await send(chain, submitter, {
        address: splitter,
        abi: splitterAbi,
        functionName: "settleDepositFromAuthorization",
        args: [...x402Args, buyer.address, 0n, deadline, x402Nonce, x402Signature],
      })
    ).gasUsed,
  );

  // x402 to the merchant's receiver (its static payTo): the first settlement deploys the receiver,
  // the next ones (steady state) find it deployed; each is USDC's transferWithAuthorization into the
  // receiver and the split out of it, in one transaction.
  const receivers = deployment.contracts.X402Receivers.address;
  const receiver = await chain.publicClient.readContract({
    address: receivers,
    abi: x402ReceiversAbi,
    functionName: "receiverOf",
    args: [merchant.address, usdc],
  });
  for (const [figure, label] of [
    ["x402 settlement to a receiver (first, deploys it)", "first"],
    ["x402 settlement to a receiver", "steady"],
  ] as const) {
    const nonce = ref(`x402 receiver ${label}`);
    const signature = await signWithViem(
      buyer,
      transferAuthorizationTypedData(tokenDomain(84532, usdc, chain.deployment.token.eip712), {
        from: buyer.address,
        to: receiver,
        value: 25_000_000n,
        validAfter: 0n,
        validBefore: deadline,
        nonce,
      }),
    );
    figures[figure] = Number(
      (
        await send(chain, submitter, {
          address: receivers,
          abi: x402ReceiversAbi,
          functionName: "settle",
          args: [usdc, merchant.address, buyer.address, 25_000_000n, 0n, deadline, nonce, signature],
        })
      ).gasUsed,
    );
  }

  await measureHoldGas(chain, figures, deadline);

  // Recurring: the fee collector already holds a balance from the payments above.
  const terms = await makeTerms(chain, buyer.address, merchant.address, { start: GAS_EPOCH });
  await approve(chain, buyer, usdc, recurring, 10n ** 12n);
  figures["first charge (EOA)"] = Number((await chargeAsRelayer(chain, terms, await signTerms(chain, buyer, terms), 10_000n)).gasUsed);

  const account = await deployTestContract(chain, buyer, testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [buyer.address]);
  await send(chain, buyer, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [account, 100_000_000n] });
  await send(chain, buyer, {
    address: account,
    abi: testSmartAccountAbi,
    functionName: "execute",
    args: [usdc, 0n, encodeFunctionData({ abi: fiatTokenAbi, functionName: "approve", args: [recurring, 10n ** 12n] })],
  });
  const accountTerms = await makeTerms(chain, account, merchant.address, { start: GAS_EPOCH });
  figures["first charge (ERC-1271)"] = Number((await chargeAsRelayer(chain, accountTerms, await signTerms(chain, buyer, accountTerms), 10_000n)).gasUsed);

  await chain.advanceTime(terms.period);
  figures["later charge"] = Number((await chargeAsRelayer(chain, terms, "0x", 10_000n)).gasUsed);
  // Period 6: the first of the next group of six charge records, so its storage slot is created.
  await chain.advanceTime(5n * terms.period);
  figures["later charge (new slot)"] = Number((await chargeAsRelayer(chain, terms, "0x", 10_000n)).gasUsed);
  figures["revoke"] = Number((await send(chain, buyer, { address: recurring, abi: recurringChargesAbi, functionName: "revoke", args: [terms] })).gasUsed);

  // A renewal wave: BATCH_SIZE payers, each charged once before, renewed in one chargeBatch; the
  // figure is the transaction's gas over the renewals in it (the 21,000 base and the calldata included).
  const wave = await renewalWave(chain, buyer, BATCH_SIZE);
  // The same wave where renewals share accounts, so the service prices a batch by what each renewal
  // touches first (charge-gas.ts): one payer paying 20 merchants, and one payer paying one merchant.
  const onePayer = await renewalWave(chain, buyer, BATCH_SIZE, { payers: 1 });
  const onePayerOneMerchant = await renewalWave(chain, buyer, BATCH_SIZE, { payers: 1, merchants: 1 });
  /** One chargeBatch renewing the whole wave for its current period; the gas per renewal. */
  const renewWave = async (wave: Terms[]) => {
    const items = await Promise.all(
      wave.map(async (t) => ({ terms: t, signature: "0x" as const, gasReimbursement: 10_000n, expectedPeriod: await currentPeriod(chain, t) })),
    );
    const receipt = await send(chain, relayerOf(chain), { address: recurring, abi: recurringChargesAbi, functionName: "chargeBatch", args: [items] });
    return Math.ceil(Number(receipt.gasUsed) / BATCH_SIZE);
  };
  await chain.advanceTime(30n * 24n * 3600n);
  figures[`renewal in a batch of ${BATCH_SIZE}`] = await renewWave(wave);
  figures[`renewal in a batch of ${BATCH_SIZE} (one payer)`] = await renewWave(onePayer);
  figures[`renewal in a batch of ${BATCH_SIZE} (one payer, one merchant)`] = await renewWave(onePayerOneMerchant);
  // Period 6 of each: one renewal in six starts a new slot of charge records.
  await chain.advanceTime(5n * 30n * 24n * 3600n);
  figures[`renewal in a batch of ${BATCH_SIZE} (new slot)`] = await renewWave(wave);
  return figures;
}

/** The renewals a batch is measured on. */
export const BATCH_SIZE = 20;

/** Distinct keys per wave, so no wave's accounts are warm from, or share slots with, another's. */
let waves = 0;

/**
 * `size` subscriptions charged once, each payer with USDC and an allowance, each merchant holding
 * USDC already: by default `size` payers each paying its own merchant (no balance slot is warm from
 * another item); `payers` and `merchants` make fewer accounts, shared round-robin.
 */
async function renewalWave(chain: LocalChain, funder: HDAccount, size: number, shared: { payers?: number; merchants?: number } = {}): Promise<Terms[]> {
  const recurring = chain.deployment.contracts.RecurringCharges.address;
  const usdc = chain.deployment.token.address;
  const keys = 1000 + 100 * waves++;
  const wave: Terms[] = [];
  for (let i = 0; i < size; i++) {
    const payerIndex = i % (shared.payers ?? size);
    const merchantIndex = i % (shared.merchants ?? size);
    const payer = localAccount(keys + payerIndex);
    const merchant = localAccount(keys + 50 + merchantIndex);
    if (payerIndex === i) {
      await chain.testClient.setBalance({ address: payer.address, value: 10n ** 18n });
      const subscriptions = BigInt(Math.ceil(size / (shared.payers ?? size)));
      await send(chain, funder, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [payer.address, 100_000_000n * subscriptions] });
      await approve(chain, payer, usdc, recurring, 10n ** 12n);
    }
    if (merchantIndex === i) await send(chain, funder, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [merchant.address, 1_000_000n] });
    const terms = await makeTerms(chain, payer.address, merchant.address, { salt: keccak256(toHex(`wave ${keys} subscription ${i}`)) });
    await chargeAsRelayer(chain, terms, await signTerms(chain, payer, terms), 10_000n);
    wave.push(terms);
  }
  return wave;
}

/**
 * Targets from the payment-safety issue, on real USDC (FiatTokenV2_2 behind its proxy), steady state:
 * exceeded means a regression worth a look before landing.
 */
export const GAS_TARGETS: GasFigures = {
  "pay (allowance)": 90_000,
  // Issue "Pay from anywhere": settling a payment address, first use of the address included.
  "settle deposit (first use)": 120_000,
  // Issue 29: an x402 settlement to a deployed receiver (the merchant's static payTo).
  "x402 settlement to a receiver": 120_000,
  "first charge (EOA)": 140_000,
  "first charge (ERC-1271)": 140_000,
  "later charge": 100_000,
  [`renewal in a batch of ${BATCH_SIZE}`]: 70_000,
};
