import { startLocalChain } from "../dev/localchain/harness.js";
import { startBaseNode } from "../dev/localchain/base-node.js";
const chain = await startLocalChain({ fork: null, sameSecondBlocks: true });
const node = await startBaseNode(chain, { latencyMs: 0 });
const t0 = Date.now();
const b0 = await chain.publicClient.getBlockNumber();
await new Promise((r) => setTimeout(r, 2000));
const b1 = await chain.publicClient.getBlockNumber();
console.log("blocks in 2s", b1 - b0, Date.now() - t0);
for (let n = b1 - 6n; n <= b1; n++) {
  const b: any = await chain.provider.request({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] });
  console.log(Number(b.number), Number(b.timestamp), Number(b.timestampMs), Number(b.baseFeePerGas), Number(b.gasLimit));
}
const p: any = await chain.provider.request({ method: "eth_getBlockByNumber", params: ["pending", false] });
console.log("pending", Number(p.number));
const t1 = performance.now();
const hash = await chain.wallet(chain.accounts[3]!).sendTransaction({ to: chain.accounts[4]!.address, value: 1n, account: chain.accounts[3]!, chain: chain.chain });
const r: any = await chain.provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
console.log("immediate receipt", r);
const rec = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
console.log("receipt after", performance.now() - t1, rec.blockNumber);
const rr: any = await chain.provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
const tx: any = await chain.provider.request({ method: "eth_getTransactionByHash", params: [hash] });
console.log(rr.blockTimestampMs, tx.blockTimestampMs, rr.transactionIndex);
const ms = await chain.publicClient.call({ to: "0x4200000000000000000000000000000000000030", data: "0x" });
console.log("basetime", BigInt(ms.data!), "head", (await chain.publicClient.getBlock()).timestamp);
await node.close(); await chain.close();
