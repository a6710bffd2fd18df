import { assert } from "chai";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalChain, type LocalChain } from "../../dev/localchain/harness.js";
import { deployEnvironment } from "../../dev/deploy/deploy-environment.js";
import { COVERAGE_BUILD } from "../../dev/deploy/build-mode.js";
import { planContracts } from "../../dev/deploy/plan.js";
import { DEPLOYMENTS_DIR, loadDeployment } from "../../src/deployments.js";
import { splitterAbi } from "../../src/generated/contracts.js";

describe("deploy script", () => {
  let chain: LocalChain;
  before(async function () {
    this.timeout(120_000);
    chain = await startLocalChain({ port: 0, withoutContracts: true });
  });
  after(() => chain?.close());
  const deployer = () => chain.accounts[5]!;

  it("deploys the three contracts through CREATE2 at the addresses deployments/84532.json names, then leaves them alone", async () => {
    const lines: string[] = [];
    const deploymentsDir = mkdtempSync(join(tmpdir(), "deployments-"));
    copyFileSync(join(DEPLOYMENTS_DIR, "84532.json"), join(deploymentsDir, "84532.json"));
    if (COVERAGE_BUILD) {
      // Instrumented bytecode has other CREATE2 addresses: only this test's copy records them.
      const file = JSON.parse(readFileSync(join(deploymentsDir, "84532.json"), "utf8"));
      for (const planned of planContracts(file, loadDeployment(84532).parameters!)) file.contracts[planned.name].address = planned.address;
      writeFileSync(join(deploymentsDir, "84532.json"), JSON.stringify(file));
    }
    const expected = loadDeployment(84532, deploymentsDir).contracts!;
    const dry = await deployEnvironment({
      chainId: 84532,
      rpcUrl: chain.rpcUrl!,
      deployer: deployer(),
      dryRun: true,
      deploymentsDir,
      log: (l) => lines.push(l),
    });
    assert.deepEqual(
      dry.map((d) => d.txHash),
      [null, null, null],
    );
    assert.equal(await chain.publicClient.getCode({ address: expected.Splitter.address }), undefined);

    const first = await deployEnvironment({ chainId: 84532, rpcUrl: chain.rpcUrl!, deployer: deployer(), deploymentsDir, log: (l) => lines.push(l) });
    assert.deepEqual(
      first.map((d) => d.address),
      [expected.Splitter.address, expected.RecurringCharges.address, expected.X402Receivers.address],
    );
    assert.ok(first.every((d) => d.txHash));
    // The first deployment's block is recorded: the payments list and the depositor search read no lower.
    const firstReceipt = await chain.publicClient.getTransactionReceipt({ hash: first[0]!.txHash! });
    assert.equal(loadDeployment(84532, deploymentsDir).deployBlock, Number(firstReceipt.blockNumber));
    const feeBps = await chain.publicClient.readContract({ address: expected.Splitter.address, abi: splitterAbi, functionName: "FEE_BPS" });
    assert.equal(feeBps, 200);

    const again = await deployEnvironment({ chainId: 84532, rpcUrl: chain.rpcUrl!, deployer: deployer(), deploymentsDir, log: (l) => lines.push(l) });
    assert.deepEqual(
      again.map((d) => d.txHash),
      [null, null, null],
    );
    assert.equal(loadDeployment(84532, deploymentsDir).deployBlock, Number(firstReceipt.blockNumber), "contracts already there keep their block");
    assert.ok(lines.some((l) => l.includes("already at")));
    assert.ok(
      lines.some((l) => l.endsWith(`--constructor-args-path deployments/verify/84532.Splitter.args.mjs ${expected.Splitter.address}`)),
      "prints the verification commands",
    );
    const args = (await import(join(deploymentsDir, "verify", "84532.RecurringCharges.args.mjs"))).default;
    assert.deepEqual(args.slice(0, 3), [loadDeployment(84532).parameters!.owner, loadDeployment(84532).parameters!.feeCollector, 200]);
  });

  it("refuses production without the explicit flag, and an RPC of another chain", async () => {
    let error: Error | undefined;
    try {
      await deployEnvironment({ chainId: 8453, rpcUrl: chain.rpcUrl!, deployer: deployer(), log: () => {} });
    } catch (e) {
      error = e as Error;
    }
    assert.match(error?.message ?? "", /refusing to deploy to production/);

    // A production file with parameters, pointed at this (84532) chain: the chain id check refuses.
    const dir = mkdtempSync(join(tmpdir(), "deployments-"));
    const production = { ...loadDeployment(84532), environment: "production", chainId: 8453 };
    writeFileSync(join(dir, "8453.json"), JSON.stringify(production));
    error = undefined;
    try {
      await deployEnvironment({ chainId: 8453, rpcUrl: chain.rpcUrl!, deployer: deployer(), allowProduction: true, deploymentsDir: dir, log: () => {} });
    } catch (e) {
      error = e as Error;
    }
    assert.match(error?.message ?? "", /serves chain 84532/);
  });
});
