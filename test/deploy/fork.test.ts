import { assert } from "chai";
import { keccak256, type Address, type Hex } from "viem";
import { fiatTokenAbi, fiatTokenProxyAbi, recurringChargesAbi } from "../../src/generated/contracts.js";
import { forkFromEnvironment, LOCAL_ROLES, LOCAL_USDC_UNITS, startLocalChain, type LocalChain } from "../../dev/localchain/harness.js";
import { send } from "../helpers/tx.js";

/**
 * Fork mode against a local upstream standing in for Base Sepolia: USDC (its roles held by others,
 * as Circle holds them) and the CREATE2 deployer, none of our contracts. `npm run test:fork` runs the
 * fork suite the same way.
 */
/** Code that is not the stand-in's (it only stops), standing for the canonical contracts on the fork. */
const CANONICAL_LOOKALIKE: Hex = "0x00";

describe("fork mode (FORK_URL) against a local upstream", function () {
  this.timeout(180_000);
  let upstream: LocalChain;
  let fork: LocalChain;
  const foreign: Record<string, Address> = {
    proxyAdmin: "0x00000000000000000000000000000000000a0001",
    owner: "0x00000000000000000000000000000000000a0002",
    pauser: "0x00000000000000000000000000000000000a0003",
    blacklister: "0x00000000000000000000000000000000000a0004",
    masterMinter: "0x00000000000000000000000000000000000a0005",
  };
  let upstreamUsdcCode: Hex;
  let upstreamImplementation: Address;

  before(async () => {
    upstream = await startLocalChain({ port: 0, withoutContracts: true, fork: null });
    const usdc = upstream.deployment.token.address;
    const roles = upstream.usdcRoles;
    // On the upstream, USDC's roles go to accounts nobody here holds a key for.
    await send(upstream, roles.owner, { address: usdc, abi: fiatTokenAbi, functionName: "updatePauser", args: [foreign.pauser!] });
    await send(upstream, roles.owner, { address: usdc, abi: fiatTokenAbi, functionName: "updateBlacklister", args: [foreign.blacklister!] });
    await send(upstream, roles.owner, { address: usdc, abi: fiatTokenAbi, functionName: "updateMasterMinter", args: [foreign.masterMinter!] });
    await send(upstream, roles.owner, { address: usdc, abi: fiatTokenAbi, functionName: "transferOwnership", args: [foreign.owner!] });
    await send(upstream, roles.proxyAdmin, { address: usdc, abi: fiatTokenProxyAbi, functionName: "changeAdmin", args: [foreign.proxyAdmin!] });
    // One account holds an odd balance there; the fork gives it exactly 1,000,000.
    await send(upstream, upstream.accounts[LOCAL_ROLES.firstUser]!, {
      address: usdc,
      abi: fiatTokenAbi,
      functionName: "transfer",
      args: [upstream.accounts[LOCAL_ROLES.firstUser + 1]!.address, 123n],
    });
    upstreamUsdcCode = (await upstream.publicClient.getCode({ address: usdc }))!;
    upstreamImplementation = await upstream.publicClient.readContract({
      address: usdc,
      abi: fiatTokenProxyAbi,
      functionName: "implementation",
      account: foreign.proxyAdmin!,
    });
    // Other code at Commerce Payments' canonical addresses, as on Base Sepolia (the canonical escrow
    // and collector): the fork must keep it, not place the stand-in over it.
    for (const address of [upstream.deployment.authCapture![0]!.escrow, upstream.deployment.authCapture![0]!.eip3009Collector]) {
      await upstream.testClient.setCode({ address, bytecode: CANONICAL_LOOKALIKE });
    }
    fork = await startLocalChain({ fork: { url: upstream.rpcUrl! } });
  });
  after(async () => {
    await fork?.close();
    await upstream?.close();
  });

  it("keeps the code at the escrow's and collector's canonical addresses: the stand-in is placed only where there is none", async () => {
    const { escrow, eip3009Collector } = fork.deployment.authCapture![0]!;
    assert.equal(await fork.publicClient.getCode({ address: escrow }), CANONICAL_LOOKALIKE);
    assert.equal(await fork.publicClient.getCode({ address: eip3009Collector }), CANONICAL_LOOKALIKE);
    assert.deepEqual(fork.authCapture, { escrow, eip3009Collector, standIn: false });
    assert.isTrue(upstream.authCapture === null || upstream.authCapture.standIn, "the upstream, built from nothing, got the stand-in");
  });

  it("reads FORK_URL and FORK_BLOCK from the environment", () => {
    assert.isNull(forkFromEnvironment({}));
    assert.deepEqual(forkFromEnvironment({ FORK_URL: "http://127.0.0.1:8545", FORK_BLOCK: "12" }), { url: "http://127.0.0.1:8545", blockNumber: 12n });
    assert.throws(() => forkFromEnvironment({ FORK_URL: "http://127.0.0.1:8545", FORK_BLOCK: "latest" }), /FORK_BLOCK/);
  });

  it("keeps the forked USDC and CREATE2 deployer as they are (code, implementation)", async () => {
    const { token, create2Deployer } = fork.deployment;
    assert.deepEqual(fork.fork, { url: upstream.rpcUrl! });
    assert.equal(await fork.publicClient.getChainId(), 84532);
    assert.equal(keccak256((await fork.publicClient.getCode({ address: token.address }))!), keccak256(upstreamUsdcCode));
    const implementation = await fork.publicClient.readContract({
      address: token.address,
      abi: fiatTokenProxyAbi,
      functionName: "implementation",
      account: fork.usdcRoles.proxyAdmin.address,
    });
    assert.equal(implementation, upstreamImplementation, "USDC's implementation is the upstream's, not a new one");
    assert.equal(await fork.publicClient.getCode({ address: create2Deployer }), await upstream.publicClient.getCode({ address: create2Deployer }));
  });

  it("deploys our contracts through CREATE2 on the fork only, and allows the local relayer", async () => {
    const { Splitter, RecurringCharges } = fork.deployment.contracts;
    for (const address of [Splitter.address, RecurringCharges.address]) {
      assert.ok(((await fork.publicClient.getCode({ address })) ?? "0x").length > 2, `code at ${address} on the fork`);
      assert.equal(await upstream.publicClient.getCode({ address }), undefined, "nothing on the upstream");
    }
    const relayer = fork.accounts[LOCAL_ROLES.relayer]!.address;
    assert.isTrue(
      await fork.publicClient.readContract({ address: RecurringCharges.address, abi: recurringChargesAbi, functionName: "isRelayer", args: [relayer] }),
    );
  });

  it("funds every test account with exactly 1,000,000 USDC by writing FiatToken's balance slots, the total supply kept", async () => {
    const usdc = fork.deployment.token.address;
    const balance = (chain: LocalChain, account: Address) =>
      chain.publicClient.readContract({ address: usdc, abi: fiatTokenAbi, functionName: "balanceOf", args: [account] });
    assert.equal(await balance(upstream, upstream.accounts[LOCAL_ROLES.firstUser + 1]!.address), LOCAL_USDC_UNITS + 123n);
    for (const account of fork.accounts) assert.equal(await balance(fork, account.address), LOCAL_USDC_UNITS);
    const supply = (chain: LocalChain) => chain.publicClient.readContract({ address: usdc, abi: fiatTokenAbi, functionName: "totalSupply" });
    assert.equal(await supply(fork), await supply(upstream), "the same accounts, the same total");
  });

  it("hands USDC's roles to the local keys, so tests blacklist and pause there (and only there)", async () => {
    const usdc = fork.deployment.token.address;
    const roles = fork.usdcRoles;
    const read = (chain: LocalChain, functionName: "owner" | "pauser" | "blacklister" | "masterMinter") =>
      chain.publicClient.readContract({ address: usdc, abi: fiatTokenAbi, functionName });
    assert.deepEqual(await Promise.all((["owner", "pauser", "blacklister", "masterMinter"] as const).map((f) => read(fork, f))), [
      roles.owner.address,
      roles.pauser.address,
      roles.blacklister.address,
      roles.masterMinter.address,
    ]);
    assert.equal((await read(upstream, "pauser")).toLowerCase(), foreign.pauser);
    const victim = fork.accounts[LOCAL_ROLES.firstUser + 4]!.address;
    await send(fork, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "blacklist", args: [victim] });
    await send(fork, roles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "pause", args: [] });
    assert.isTrue(await fork.publicClient.readContract({ address: usdc, abi: fiatTokenAbi, functionName: "isBlacklisted", args: [victim] }));
    assert.isTrue(await fork.publicClient.readContract({ address: usdc, abi: fiatTokenAbi, functionName: "paused" }));
    assert.isFalse(await upstream.publicClient.readContract({ address: usdc, abi: fiatTokenAbi, functionName: "paused" }));
  });
});
