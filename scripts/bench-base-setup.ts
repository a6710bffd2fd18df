// The renewal bench's setup (`npm run bench -- --base`), on the automining chain and not measured:
// subscriptions through the API, one approval, every first charge sent by the relayer's key straight
// to chargeBatch, 100 a transaction (through the service each first charge is estimated alone: an
// hour for 100,000 on this machine).
import type { AddressInfo } from "node:net";
import { parseEventLogs, type Hex } from "viem";
import { recurringChargesAbi } from "../src/generated/contracts.js";
import { LOCAL_ROLES, type LocalChain } from "../dev/localchain/harness.js";
import { createService } from "../src/service.js";
import { createLogger } from "../src/logger.js";
import { configFor } from "../test/helpers/service.js";
import { walletTypedData, type ResolvedTerms } from "../test/helpers/recurring.js";
import type { Terms } from "../src/recurring/terms.js";
import { approve } from "../test/helpers/tx.js";
import type { JsonAnswer } from "./lib/post-json.js";
import { chargeSkippedReason } from "./bench-common.js";

export interface SetupContext {
  chain: LocalChain;
  merchant: { address: Hex };
  payer: LocalChain["accounts"][number];
  renewals: number;
  period: number;
  env: Record<string, string>;
  postJson: (base: string, path: string, body: unknown) => Promise<JsonAnswer>;
}

/** `renewals` subscriptions of one payer, each first charged: their capabilities and ids, in order. */
export async function setUpSubscriptions(ctx: SetupContext): Promise<Array<{ token: string; id: Hex }>> {
  const { chain, merchant, payer, postJson, renewals: RENEWALS, period: PERIOD } = ctx;
  console.log(`setting up ${RENEWALS} subscriptions and their first charges (automining, not measured)…`);
  const setup = await createService(configFor(chain.rpcUrl!, ctx.env), { logger: createLogger("silent") });
  const server = setup.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const setupApi = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  // 32 set up at once (each is three requests and a signature), in the order they were asked for.
  const subscriptions: Array<{ token: string; id: Hex }> = new Array(RENEWALS);
  const firstCharges: Array<{ terms: Terms; signature: Hex }> = new Array(RENEWALS);
  let nextSetup = 0;
  await Promise.all(
    Array.from({ length: Math.min(32, RENEWALS) }, async () => {
      while (nextSetup < RENEWALS) {
        const i = nextSetup++;
        const created = await postJson(setupApi.url, "/v1/subscriptions", { recipient: merchant.address, amount: "1", period: PERIOD });
        const resolved = await postJson(setupApi.url, "/v1/subscriptions/resolve", { setup_token: created.body.setup_token });
        const typedData = walletTypedData(resolved.body as unknown as ResolvedTerms, payer.address);
        const signature = await payer.signTypedData(typedData as never);
        firstCharges[i] = { terms: typedData.message, signature };
        const finalized = await postJson(setupApi.url, "/v1/subscriptions/finalize", {
          setup_token: created.body.setup_token,
          payer: payer.address,
          signature,
        });
        if (finalized.status !== 200) throw new Error(JSON.stringify(finalized.body));
        subscriptions[i] = { token: finalized.body.subscription as string, id: finalized.body.subscription_id as Hex };
      }
    }),
  );
  await approve(chain, payer, chain.deployment.token.address, chain.deployment.contracts.RecurringCharges.address, 10n ** 15n);
  await chain.testClient.setBlockGasLimit({ gasLimit: 100_000_000n });
  await chain.mine(1);
  const relayerWallet = chain.wallet(chain.accounts[LOCAL_ROLES.relayer]!);
  for (let i = 0; i < firstCharges.length; i += 100) {
    const items = firstCharges.slice(i, i + 100).map((c) => ({ ...c, gasReimbursement: 0n, expectedPeriod: 0n }));
    const hash = await relayerWallet.writeContract({
      address: chain.deployment.contracts.RecurringCharges.address,
      abi: recurringChargesAbi,
      functionName: "chargeBatch",
      args: [items],
      gas: 30_000_000n,
      account: chain.accounts[LOCAL_ROLES.relayer]!,
      chain: chain.chain,
    });
    // Automining: mined before the hash comes back (waiting for it would poll once a second).
    const receipt = await chain.publicClient.getTransactionReceipt({ hash });
    const charged = parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs }).length;
    if (charged !== items.length) {
      const skipped = parseEventLogs({ abi: recurringChargesAbi, eventName: "ChargeSkipped", logs: receipt.logs });
      const why = skipped.slice(0, 3).map((s) => `item ${s.args.index}: ${chargeSkippedReason(s.args.reason, true)}`);
      throw new Error(`first charges: ${charged} of ${items.length} charged in ${hash} (block ${receipt.blockNumber}); ${why.join("; ")}`);
    }
  }
  server.closeAllConnections();
  server.close();
  await setup.close();
  return subscriptions;
}
