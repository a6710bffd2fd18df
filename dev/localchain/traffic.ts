import { encodeFunctionData, erc20Abi, parseEther, parseGwei, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { LOCAL_ACCOUNT_COUNT, type LocalChain } from "./harness.js";
import { NODE_ACCOUNT_SLOTS } from "./node-pool.js";

/** The local account that funds the strangers (the last funded one: no test or demo role uses it). */
const FUNDER_INDEX = LOCAL_ACCOUNT_COUNT - 1;
/** What each stranger sender is given: ETH for gas, USDC to send 1 unit at a time for a long while. */
const SENDER_ETH = parseEther("10");
const SENDER_UNITS = 1_000_000n;
/** A plain USDC transfer to a fresh address uses about 52,000 gas; the limit leaves room. */
const TRANSFER_GAS = 80_000n;
/** How often the traffic sends (one of Base's blocks): `tps / 5` transfers each time. */
const TICK_MS = 200;

/**
 * Strangers' USDC traffic on the local chain (`LOCAL_TRAFFIC_TPS` on `npm start` and `npm run chain`):
 * `tps` transfers a second of 1 unit each, from fresh senders to fresh addresses, as strangers make
 * on Base. The senders are funded from a local account. A node's pool holds at most
 * {@link NODE_ACCOUNT_SLOTS} pending transactions per sender, so the load is spread over enough
 * senders that none ever has more than a couple waiting. Resolves once the senders are funded;
 * `stop()` ends it. `sent`/`refused` count what the node took.
 */
export async function startTraffic(chain: LocalChain, tps: number) {
  const stats = { sent: 0, refused: 0 };
  if (tps <= 0) return { stats, stop: () => {} };
  const token = chain.deployment.token.address;
  const funder = chain.accounts[FUNDER_INDEX]!;
  const wallet = chain.wallet(funder);
  // Each sender sends at most one transfer per block: a pool slot or two at most.
  const count = Math.max(2, Math.ceil((tps * TICK_MS) / 1000) * 2);
  if (count > 10_000) throw new Error(`LOCAL_TRAFFIC_TPS=${tps} is more than this local chain plays`);
  const senders = Array.from({ length: count }, () => ({ account: privateKeyToAccount(generatePrivateKey()) as PrivateKeyAccount, nonce: 0 }));
  let funded: Hex | null = null;
  for (const [i, s] of senders.entries()) {
    await chain.testClient.setBalance({ address: s.account.address, value: SENDER_ETH });
    funded = await wallet.writeContract({
      account: funder,
      chain: chain.chain,
      address: token,
      abi: erc20Abi,
      functionName: "transfer",
      args: [s.account.address, SENDER_UNITS],
    });
    // The funder too holds at most NODE_ACCOUNT_SLOTS pending: mined before the next run of them.
    if ((i + 1) % (NODE_ACCOUNT_SLOTS - 1) === 0) await chain.publicClient.waitForTransactionReceipt({ hash: funded });
  }
  if (funded) await chain.publicClient.waitForTransactionReceipt({ hash: funded });
  let turn = 0;
  let owed = 0;
  const timer = setInterval(() => {
    owed += (tps * TICK_MS) / 1000;
    for (; owed >= 1; owed--) {
      const sender = senders[turn++ % senders.length]!;
      void send(sender).then(
        () => stats.sent++,
        async () => {
          stats.refused++;
          // A refused nonce is free again: the sender goes on from what the node holds.
          sender.nonce = Number(
            await chain.provider.request({ method: "eth_getTransactionCount", params: [sender.account.address, "pending"] }).catch(() => sender.nonce),
          );
        },
      );
    }
  }, TICK_MS).unref();
  async function send(sender: (typeof senders)[number]): Promise<void> {
    const to = privateKeyToAccount(generatePrivateKey()).address as Address;
    const raw = await sender.account.signTransaction({
      chainId: chain.chain.id,
      type: "eip1559",
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, 1n] }),
      nonce: sender.nonce++,
      gas: TRANSFER_GAS,
      maxFeePerGas: parseGwei("1"),
      maxPriorityFeePerGas: parseGwei("0.001"),
    });
    await chain.provider.request({ method: "eth_sendRawTransaction", params: [raw] });
  }
  return { stats, stop: () => clearInterval(timer) };
}
