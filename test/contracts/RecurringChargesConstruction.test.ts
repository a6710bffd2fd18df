import { assert } from "chai";
import { getContract, zeroAddress } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { creationBytecode } from "../../dev/deploy/artifacts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { expectRevert } from "../helpers/reverts.js";

describe("RecurringCharges construction", () => {
  const local = useLocalChain();
  const deploy = (args: readonly [`0x${string}`, `0x${string}`, number, bigint, readonly `0x${string}`[]]) => {
    const from = local.chain.accounts[LOCAL_ROLES.firstUser]!;
    return local.chain
      .wallet(from)
      .deployContract({ abi: recurringChargesAbi, bytecode: creationBytecode("RecurringCharges"), args, account: from, chain: local.chain.chain });
  };
  const owner = () => local.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
  const collector = () => local.chain.accounts[LOCAL_ROLES.firstUser + 2]!.address;
  const relayer = () => local.chain.accounts[LOCAL_ROLES.firstUser + 3]!.address;

  it("refuses the zero fee collector with InvalidConfiguration", async () => {
    await expectRevert(deploy([owner(), zeroAddress, 100, 0n, []]), "InvalidConfiguration", []);
  });

  it("refuses a fee above 100% with InvalidConfiguration, and accepts exactly 100%", async () => {
    await expectRevert(deploy([owner(), collector(), 10_001, 0n, []]), "InvalidConfiguration", []);
    const hash = await deploy([owner(), collector(), 10_000, 0n, [relayer()]]);
    const receipt = await local.chain.publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, "success");
    const read = getContract({ address: receipt.contractAddress!, abi: recurringChargesAbi, client: local.chain.publicClient }).read;
    assert.equal(await read.FEE_BPS(), 10_000);
    assert.equal(await read.owner(), owner());
    assert.isTrue(await read.isRelayer([relayer()]), "relayers given at construction are allowed");
  });
});
