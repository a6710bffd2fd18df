import { assert } from "chai";
import { erc20Abi, serializeTransaction, type Hex } from "viem";
import { estimateL1Fee, getL1BaseFee } from "viem/op-stack";
import { L1_BLOCK_ADDRESS, L1_BLOCK_SLOTS, L1_FEE_LEVELS, packScalars } from "../../dev/localchain/l1-fees.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useLocalChain } from "../helpers/local-chain.js";

/** An OP-stack receipt's L1 fields (viem's op-stack formatter), read raw from the node. */
interface OpReceipt {
  l1Fee: Hex;
  l1GasPrice: Hex;
  l1BlobBaseFee: Hex;
  l1BaseFeeScalar: Hex;
  l1BlobBaseFeeScalar: Hex;
}

describe("the local chain's L1 data fee (L1Block predeploy, GasPriceOracle, receipts)", function () {
  this.timeout(120_000);
  const h = useLocalChain({ fork: null });

  /** Sends a transaction with `data` and returns its receipt's L1 fields and the unsigned transaction the GasPriceOracle prices. */
  async function sendWith(data: Hex) {
    const from = h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const client = h.chain.publicClient;
    const nonce = await client.getTransactionCount({ address: from.address });
    const fees = await client.estimateFeesPerGas();
    const tx = {
      chainId: h.chain.chain.id,
      type: "eip1559" as const,
      nonce,
      to: h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address,
      value: 1n,
      data,
      gas: 100_000n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    };
    // The GasPriceOracle's price for this exact transaction (unsigned RLP; it adds the signature's 68
    // bytes), before it is mined. The OP stack's predeploy, not ours: viem does not export its ABI.
    const oracle = await client.readContract({
      address: "0x420000000000000000000000000000000000000F",
      abi: [{ type: "function", name: "getL1Fee", stateMutability: "view", inputs: [{ type: "bytes" }], outputs: [{ type: "uint256" }] }] as const,
      functionName: "getL1Fee",
      args: [serializeTransaction(tx)],
    });
    const hash = await client.sendRawTransaction({ serializedTransaction: await from.signTransaction(tx) });
    await client.waitForTransactionReceipt({ hash });
    const receipt = (await client.request({ method: "eth_getTransactionReceipt", params: [hash] } as never)) as OpReceipt;
    return { receipt, oracle };
  }

  it("keeps the scalars at L1Block's Ecotone offsets, where the GasPriceOracle reads them", async () => {
    const word = await h.chain.publicClient.getStorageAt({ address: L1_BLOCK_ADDRESS, slot: `0x${L1_BLOCK_SLOTS.scalars.toString(16).padStart(64, "0")}` });
    const normal = L1_FEE_LEVELS.normal;
    assert.equal(BigInt(word!) >> 128n, 0n, "nothing above bit 127 (EDR's default put the scalars there)");
    assert.equal(BigInt(word!), packScalars(BigInt(word!), normal));
    assert.equal(await getL1BaseFee(h.chain.publicClient as never), normal.l1BaseFee);
  });

  it("receipts carry a non-zero l1Fee equal to GasPriceOracle.getL1Fee, at low, normal and spiking L1 fees", async () => {
    const data = `0x${"00".repeat(100)}${"5a17c0de".repeat(60)}` as Hex;
    const fees: bigint[] = [];
    for (const level of ["low", "normal", "spiking"] as const) {
      const parameters = L1_FEE_LEVELS[level];
      await h.chain.setL1Fees(parameters);
      const { receipt, oracle } = await sendWith(data);
      const l1Fee = BigInt(receipt.l1Fee);
      assert.isAbove(Number(l1Fee), 0, `${level}: l1Fee > 0`);
      assert.equal(l1Fee, oracle, `${level}: the receipt's l1Fee is what GasPriceOracle.getL1Fee priced`);
      assert.equal(BigInt(receipt.l1GasPrice), parameters.l1BaseFee);
      assert.equal(BigInt(receipt.l1BlobBaseFee), parameters.blobBaseFee);
      assert.equal(BigInt(receipt.l1BaseFeeScalar), BigInt(parameters.baseFeeScalar));
      assert.equal(BigInt(receipt.l1BlobBaseFeeScalar), BigInt(parameters.blobBaseFeeScalar));
      fees.push(l1Fee);
    }
    assert.isTrue(fees[0]! < fees[1]! && fees[1]! < fees[2]!, `low < normal < spiking: ${fees.join(" < ")}`);
  });

  it("viem's op-stack estimateL1Fee agrees with the receipt within 1%", async () => {
    const data = `0x${"ab".repeat(400)}` as Hex;
    const to = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
    const estimate = await estimateL1Fee(h.chain.publicClient as never, { to, data, value: 1n, account: h.chain.accounts[LOCAL_ROLES.firstUser]! } as never);
    const { receipt } = await sendWith(data);
    const ratio = Number(estimate) / Number(BigInt(receipt.l1Fee));
    assert.approximately(ratio, 1, 0.01, `estimate ${estimate} vs receipt ${BigInt(receipt.l1Fee)}`);
  });

  it("answers an eth_call from an account without ETH as Base does: no L1 fee taken, the sender's real balance seen", async () => {
    const unfunded = "0x00000000000000000000000000000000000a0001";
    const probe = "0x00000000000000000000000000000000000b0001";
    // CALLER BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: answers the caller's ETH balance.
    await h.chain.testClient.setCode({ address: probe, bytecode: "0x333160005260206000f3" });
    await h.chain.testClient.setBalance({ address: unfunded, value: 7n });
    const answer = await h.chain.publicClient.call({ account: unfunded, to: probe, data: "0x" });
    assert.equal(BigInt(answer.data!), 7n, "the call ran with the sender's own balance");
    const balance = await h.chain.publicClient.readContract({
      address: h.chain.deployment.token.address,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [unfunded],
      account: unfunded,
    });
    assert.equal(balance, 0n);
  });
});
