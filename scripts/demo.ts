// `npm run demo`: walks every flow against the local stack and prints what happens, step by step:
// a payment (with its webhook), a payment link, an AI agent paying with x402, a subscription charged
// for two periods, a refund and a cancellation. It uses the typed client for the API and funded local accounts as wallets.
// With no stack on API_URL it starts one (`npm start`) set up to deliver webhooks to the demo's own
// HTTPS receiver, and stops it at the end. Exits non-zero on anything unexpected.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createPublicClient, createTestClient, createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { baseSepolia } from "viem/chains";
import { PaymentServiceClient, fulfilOnce, isPaid } from "../client/src/index.js";
import { splitterAbi } from "../src/generated/contracts.js";
import { LOCAL_ROLES, localAccount } from "../dev/localchain/harness.js";
import { TERMS_TYPES, termsFromWireMessage } from "../src/recurring/terms.js";
import { Receiver } from "../test/helpers/receiver.js";
import { agentFetch, eoaSigner, listenOn, merchantPaywall, REPORT_PRICE } from "../test/helpers/x402-parties.js";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { API_URL, CHAIN_RPC_URL } from "./lib/local-stack.js";

const RPC_URL = CHAIN_RPC_URL;
const HOOK_HOST = "hooks.demo-merchant.example.com";
const RECEIVER_PORT = Number(process.env.DEMO_RECEIVER_PORT ?? 8443);

let stepNo = 0;
const step = (text: string) => console.log(`\n${++stepNo}. ${text}`);
const say = (text: string) => console.log(`   ${text}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`unexpected: ${what}`);
}
async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, seconds = 60): Promise<T> {
  for (let i = 0; i < seconds * 2; i++) {
    const value = await probe();
    if (value) return value;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const receiver = new Receiver(HOOK_HOST, join(".data", "demo"));
await receiver.start(RECEIVER_PORT);

let stack: ChildProcess | null = null;
const up = await fetch(`${API_URL}/health`)
  .then((r) => r.ok)
  .catch(() => false);
if (!up) {
  console.log(`no stack at ${API_URL}: starting one (npm start) that delivers webhooks to ${HOOK_HOST} → this demo…`);
  stack = spawn("npm", ["start"], {
    env: {
      ...process.env,
      WEBHOOKS_ALLOW_LOOPBACK: "true",
      WEBHOOKS_RESOLVE: `${HOOK_HOST}=127.0.0.1`,
      WEBHOOKS_PORT_OVERRIDE: String(RECEIVER_PORT),
      NODE_EXTRA_CA_CERTS: join(process.cwd(), ".data", "demo", "cert.pem"),
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  await until(
    "the stack",
    () =>
      fetch(`${API_URL}/health`)
        .then((r) => r.ok)
        .catch(() => false),
    180,
  );
}

const api = new PaymentServiceClient({ baseUrl: API_URL });
const chain = { ...baseSepolia, rpcUrls: { default: { http: [RPC_URL] } } };
const reader = createPublicClient({ chain, transport: http(RPC_URL) });
const testChain = createTestClient({ chain, mode: "hardhat", transport: http(RPC_URL) });
const wallet = (index: number) => createWalletClient({ account: localAccount(index), chain, transport: http(RPC_URL) });
const buyer = LOCAL_ROLES.firstUser + 10;
const merchant = localAccount(LOCAL_ROLES.firstUser + 11).address;
const payer = LOCAL_ROLES.firstUser + 12;
async function sent(hash: Hex) {
  const receipt = await reader.waitForTransactionReceipt({ hash });
  check(receipt.status === "success", `transaction ${hash} succeeded`);
  // The API reads the node's latest block: wait until its head has the receipt's block (a node may serve a receipt a moment before its head moves).
  await until("its block to be sealed", async () => (await reader.getBlockNumber({ cacheTime: 0 })) >= receipt.blockNumber);
  return receipt;
}

try {
  step("Capabilities");
  const caps = await api.capabilities();
  say(`${caps.environment} on chain ${caps.chain_id}; Splitter ${caps.contracts.splitter}; fee ${caps.fee_bps} bps; finality ${JSON.stringify(caps.finality)}`);

  step("One-time payment with a webhook");
  const payment = await api.createPayment({ recipient: merchant, amount: "25.00", notify_url: `https://${HOOK_HOST}/payments` });
  say(`intent for ${payment.amount} USDC, reference ${payment.reference}, notify_url ${payment.notify_url ?? "(not accepted)"}`);
  const pay = payment.pay as { splitter: Address; token: Address; recipient: Address; amount_units: string; reference: Hex };
  await sent(await wallet(buyer).writeContract({ address: pay.token, abi: erc20Abi, functionName: "approve", args: [pay.splitter, BigInt(pay.amount_units)] }));
  const payReceipt = await sent(
    await wallet(buyer).writeContract({
      address: pay.splitter,
      abi: splitterAbi,
      functionName: "pay",
      args: [pay.token, pay.recipient, BigInt(pay.amount_units), pay.reference],
    }),
  );
  say(`buyer paid in ${payReceipt.transactionHash}`);
  const verdict = await until("the payment to settle", async () => {
    const v = await api.verifyPayment({ intent: payment.intent, tx_hash: payReceipt.transactionHash });
    return v.valid ? v : null;
  });
  check(isPaid(verdict, { reference: payment.reference }), "the verdict matches the stored reference");
  const ledger = new Set<string>();
  await fulfilOnce(ledger, `${payment.reference}:${verdict.tx_hash}`, () => say(`verified in block ${verdict.block_number}: fulfilling the order once`));

  step("Payment link");
  const link = await api.createLink({ recipient: merchant, amount: "5" });
  say(`link ${link.link_id}, checkout ${link.url.slice(0, 60)}…`);
  const viaLink = await api.resolvePayment({ intent: link.link });
  check(viaLink.reference.startsWith(link.link_id), "a link payment's reference starts with the link id");
  await sent(
    await wallet(buyer).writeContract({
      address: viaLink.token as Address,
      abi: erc20Abi,
      functionName: "approve",
      args: [viaLink.splitter as Address, BigInt(viaLink.amount_units)],
    }),
  );
  const linkPaid = await sent(
    await wallet(buyer).writeContract({
      address: viaLink.splitter as Address,
      abi: splitterAbi,
      functionName: "pay",
      args: [viaLink.token as Address, viaLink.recipient as Address, BigInt(viaLink.amount_units), viaLink.reference as Hex],
    }),
  );
  const linkVerdict = await until("the link payment to settle", async () => {
    const v = await api.verifyPayment({ intent: viaLink.intent!, tx_hash: linkPaid.transactionHash });
    return v.valid ? v : null;
  });
  check(isPaid(linkVerdict, { linkId: link.link_id }), "link payment verified");
  say(`paid through the link: reference ${viaLink.reference}`);
  await api.closeLink({ manage_token: link.manage_token });
  say("link closed");

  // Before the subscription moves the chain's clock: x402 clients sign on the wall clock.
  step("x402: an agent pays for a report (x402's own packages, this service as facilitator)");
  const paywall = merchantPaywall(API_URL, merchant);
  const shop = await listenOn(paywall.app);
  try {
    const requests: Headers[] = [];
    const agent = localAccount(LOCAL_ROLES.firstUser + 13);
    const bought = await agentFetch(eoaSigner(agent, reader as never), requests)(`${shop.url}/report`);
    check(bought.status === 200, `the agent gets the report (got ${bought.status})`);
    const settlement = decodePaymentResponseHeader(bought.headers.get("PAYMENT-RESPONSE")!);
    const signed = JSON.parse(Buffer.from(requests.find((h) => h.has("PAYMENT-SIGNATURE"))!.get("PAYMENT-SIGNATURE")!, "base64").toString());
    const issued = paywall.addresses.paymentOf(signed.accepted.payTo)!;
    say(`402, then paid ${REPORT_PRICE.x402} to the payment address ${signed.accepted.payTo}; settled and split in ${settlement.transaction}`);
    const x402Verdict = await until("the x402 payment to be final", async () => {
      const v = await api.verifyPayment({ intent: issued.intent, tx_hash: settlement.transaction as Hex });
      return v.valid ? v : null;
    });
    check(isPaid(x402Verdict, { reference: issued.reference }), "the x402 payment verifies against its intent");
    say(`verify: valid in block ${x402Verdict.block_number}`);
  } finally {
    await shop.close();
  }

  step("Subscription, charged for two periods");
  const setup = await api.createSubscription({ recipient: merchant, amount: "9.99", period: caps.min_period });
  const terms = await api.resolveSubscription({ setup_token: setup.setup_token });
  const payerAccount = localAccount(payer);
  const signature = await payerAccount.signTypedData({
    domain: terms.typed_data.domain as never,
    types: TERMS_TYPES,
    primaryType: "Terms",
    message: termsFromWireMessage(terms.typed_data.message, payerAccount.address),
  });
  await sent(
    await wallet(payer).writeContract({
      address: terms.token as Address,
      abi: erc20Abi,
      functionName: "approve",
      args: [terms.contract as Address, BigInt(terms.amount_units) * 12n],
    }),
  );
  const sub = await api.finalizeSubscription({ setup_token: setup.setup_token, payer: payerAccount.address, signature });
  say(`subscription ${sub.subscription_id}: ${sub.amount} USDC every ${sub.period} s`);
  const chargeUntilSettled = async (period: number) => {
    const result = await until(`period ${period} to be charged`, async () => {
      const r = await api.charge({ subscription: sub.subscription });
      return r.status === "CONFIRMING" ? null : r;
    });
    check(result.period_index === period && result.ok, `period ${period} charged`);
    say(`period ${period}: ${result.status} in ${result.tx_hash}`);
  };
  await chargeUntilSettled(0);
  check((await api.charge({ subscription: sub.subscription })).status === "ALREADY_CHARGED", "a repeated charge is ALREADY_CHARGED");
  say(`time passes: ${sub.period} s`);
  await testChain.increaseTime({ seconds: sub.period });
  await testChain.mine({ blocks: 1 });
  await chargeUntilSettled(1);
  const state = await api.subscriptionState({ subscription: sub.subscription });
  check(state.paid_count === 2, "two periods paid");
  say(`state ${state.state}, paid_count ${state.paid_count}, lastPeriod ${state.lastPeriod}`);

  step("Refund of the one-time payment");
  const refund = await api.prepareRefund({ intent: payment.intent, tx_hash: payReceipt.transactionHash, amount: payment.pay.amount_units });
  say(`refund token for ${refund.refund_amount} USDC to ${refund.payer} (the merchant absorbs the fee)`);
  const refundReceipt = await sent(
    await wallet(LOCAL_ROLES.firstUser + 11).writeContract({
      address: refund.token as Address,
      abi: erc20Abi,
      functionName: "transfer",
      args: [refund.payer as Address, BigInt(refund.refund_amount_units)],
    }),
  );
  const refunded = await until("the refund to settle", async () =>
    api
      .verifyRefund({
        intent: payment.intent,
        tx_hash: payReceipt.transactionHash,
        refund_amount: refund.refund_amount_units,
        refund_tx_hash: refundReceipt.transactionHash,
      })
      .catch((e) => (e.error === "REFUND_CONFIRMING" ? null : Promise.reject(e))),
  );
  say(`${refunded.status} in block ${refunded.block_number}`);

  step("Cancellation by the payer");
  const session = await api.revokeSession({ subscription: sub.subscription });
  const prepared = await api.revokePrepare({ subscription: session.cancel_token });
  say(prepared.description);
  await sent(await wallet(payer).sendTransaction({ to: prepared.to as Address, data: prepared.data as Hex }));
  check((await api.subscriptionState({ subscription: sub.subscription })).state === "REVOKED", "revoked on chain");
  await testChain.increaseTime({ seconds: sub.period });
  await testChain.mine({ blocks: 1 });
  const refused = await api.charge({ subscription: sub.subscription }).catch((e) => e);
  check(refused.error === "PERMISSION_REVOKED", "a charge after revocation is PERMISSION_REVOKED");
  say("next charge refused: PERMISSION_REVOKED");

  step("Webhook");
  const hook = await until(
    "the payment.settled webhook",
    async () => receiver.received.find((r) => (r.body.data as { tx_hash?: string })?.tx_hash === payReceipt.transactionHash) ?? null,
    stack ? 60 : 20,
  ).catch((error) => {
    if (stack) throw error;
    say("not received: this stack delivers only to public hosts. Run `npm run demo` with no stack up to see it.");
    return null;
  });
  if (hook) {
    const data = hook.body.data as { intent: string; tx_hash: Hex };
    const check2 = await api.verifyPayment({ intent: data.intent, tx_hash: data.tx_hash });
    check(isPaid(check2, { reference: payment.reference }), "the webhook's payment verifies");
    say(`received ${hook.headers["svc-event-type"]} (${hook.headers["svc-event-id"]}); verified before trusting it`);
    const again = await fulfilOnce(ledger, `${payment.reference}:${data.tx_hash}`, () => say("fulfilling again?!"));
    check(!again, "fulfilled once");
    say("already fulfilled for this reference and transaction: nothing to do");
  }
  console.log("\ndemo complete");
} catch (error) {
  console.error(`\ndemo failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await receiver.stop();
  if (stack?.pid) process.kill(-stack.pid, "SIGTERM");
}
