import { assert } from "chai";
import { TypedDataEncoder } from "ethers";
import { encodeAbiParameters, keccak256, parseSignature, type Address, type Hex } from "viem";
import { fiatTokenAbi, splitterAbi, testUsdcAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { EIP712_DOMAIN_TYPE, permitTypedData, receiveAuthorizationTypedData, tokenDomain } from "../../src/chain/token-authorizations.js";
import { checkTokenDomain, TokenDomainMismatchError } from "../../src/chain/token-domain.js";
import { loadDeployment } from "../../src/deployments.js";
import { createService } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import { configFor, useService } from "../helpers/service.js";
import { walletTypedData, type ResolvedTerms } from "../helpers/recurring.js";
import { asJson, signWithEthers, signWithMetaMask, signWithViem, type WalletTypedData } from "../helpers/signers.js";
import { deployTestContract } from "../helpers/deploy.js";
import { balanceOf, send } from "../helpers/tx.js";

/** Every typed-data object a wallet is handed: viem, ethers v6 and MetaMask's eth-sig-util V4 must produce one signature. */
async function signEveryWay(account: Parameters<typeof signWithViem>[0], forViem: WalletTypedData, asServed: WalletTypedData) {
  const viem = await signWithViem(account, forViem);
  const ethers = await signWithEthers(account, asServed);
  const metamask = signWithMetaMask(account, asServed);
  return { viem, ethers, metamask };
}

describe("typed data every wallet signs the same", function () {
  this.timeout(60_000);
  const h = useService();
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const relayer = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const post = async (path: string, body: object) => {
    const res = await h.api.post(path).send(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  it("subscription terms: resolve serves EIP712Domain in types; viem, ethers v6 and eth-sig-util V4 sign alike, and finalize accepts each", async () => {
    const signatures: Hex[] = [];
    for (const signer of ["viem", "ethers", "metamask"] as const) {
      const created = await post("/v1/subscriptions", { recipient: merchant().address, amount: "10", period: 3600 });
      const resolved = (await post("/v1/subscriptions/resolve", { setup_token: created.setup_token })) as ResolvedTerms;
      assert.deepEqual(resolved.typed_data.types.EIP712Domain, EIP712_DOMAIN_TYPE);
      const payer = buyer().address;
      // What a wallet receives: the served object with `payer` filled, as JSON.
      const asServed = asJson({ ...resolved.typed_data, message: { ...resolved.typed_data.message, payer } }) as unknown as WalletTypedData;
      const all = await signEveryWay(buyer(), walletTypedData(resolved, payer) as unknown as WalletTypedData, asServed);
      assert.equal(all.ethers, all.viem, "ethers v6 (EIP712Domain dropped) signs what viem signs");
      assert.equal(all.metamask, all.viem, "eth-sig-util V4 signs what viem signs");
      const finalized = await h.api.post("/v1/subscriptions/finalize").send({ setup_token: created.setup_token, payer, signature: all[signer] });
      assert.equal(finalized.status, 200, `${signer}: ${JSON.stringify(finalized.body)}`);
      signatures.push(all[signer]);
    }
    assert.equal(new Set(signatures).size, 3, "three subscriptions, three signatures");
  });

  it("ethers v6 refuses EIP712Domain in types (so ethers callers drop it), and eth-sig-util without it signs another domain", async () => {
    const created = await post("/v1/subscriptions", { recipient: merchant().address, amount: "10", period: 3600 });
    const resolved = (await post("/v1/subscriptions/resolve", { setup_token: created.setup_token })) as ResolvedTerms;
    const asServed = asJson({ ...resolved.typed_data, message: { ...resolved.typed_data.message, payer: buyer().address } }) as unknown as WalletTypedData;
    assert.throws(() => TypedDataEncoder.hash(asServed.domain, asServed.types as never, asServed.message));
    const { EIP712Domain: _dropped, ...bare } = asServed.types;
    const withoutDomainType = signWithMetaMask(buyer(), { ...asServed, types: bare });
    const finalized = await h.api
      .post("/v1/subscriptions/finalize")
      .send({ setup_token: created.setup_token, payer: buyer().address, signature: withoutDomainType });
    assert.equal(finalized.status, 400);
    assert.equal(finalized.body.error, "INVALID_SIGNATURE");
  });

  it("EIP-3009 from payment resolve's token_domain: the three signers agree, and real USDC takes eth-sig-util's signature", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "3" });
    const r = await post("/v1/payments/resolve", { intent: intent.intent });
    assert.deepEqual(r.token_domain, { name: "USDC", version: "2", chainId: 84532, verifyingContract: h.chain.deployment.token.address });
    const nonce = keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [r.recipient, r.reference]));
    const typed = receiveAuthorizationTypedData(r.token_domain, {
      from: buyer().address,
      to: r.splitter,
      value: 3_000_000n,
      validAfter: 0n,
      validBefore: BigInt(r.expires_at),
      nonce,
    });
    assert.deepEqual(typed.types.EIP712Domain, EIP712_DOMAIN_TYPE);
    const all = await signEveryWay(buyer(), typed as unknown as WalletTypedData, asJson(typed) as unknown as WalletTypedData);
    assert.equal(all.ethers, all.viem);
    assert.equal(all.metamask, all.viem);
    const { v, r: sr, s } = parseSignature(all.metamask);
    const before = await balanceOf(h.chain, r.token, merchant().address);
    await send(h.chain, relayer(), {
      address: r.splitter,
      abi: splitterAbi,
      functionName: "payWithAuthorization",
      args: [r.token, buyer().address, r.recipient, 3_000_000n, r.reference, 0n, BigInt(r.expires_at), Number(v), sr, s],
    });
    assert.equal((await balanceOf(h.chain, r.token, merchant().address)) - before, 2_940_000n);
  });

  it("EIP-2612 permit: the three signers agree, and real USDC takes eth-sig-util's signature", async () => {
    const { token, contracts } = h.chain.deployment;
    const spender = contracts.Splitter.address;
    const nonce = await h.chain.publicClient.readContract({ address: token.address, abi: fiatTokenAbi, functionName: "nonces", args: [buyer().address] });
    const deadline = BigInt(Math.floor(h.clock.ms / 1000) + 3600);
    const typed = permitTypedData(tokenDomain(84532, token.address, token.eip712), { owner: buyer().address, spender, value: 7_000_000n, nonce, deadline });
    const all = await signEveryWay(buyer(), typed as unknown as WalletTypedData, asJson(typed) as unknown as WalletTypedData);
    assert.equal(all.ethers, all.viem);
    assert.equal(all.metamask, all.viem);
    await send(h.chain, relayer(), {
      address: token.address,
      abi: fiatTokenAbi,
      functionName: "permit",
      args: [buyer().address, spender, 7_000_000n, deadline, all.metamask],
    });
    assert.equal(
      await h.chain.publicClient.readContract({ address: token.address, abi: fiatTokenAbi, functionName: "allowance", args: [buyer().address, spender] }),
      7_000_000n,
    );
  });
});

describe("the token's EIP-712 domain per environment", function () {
  this.timeout(60_000);
  const h = useService();

  it('deployments record it: Base Sepolia USDC is "USDC"/"2", Base mainnet USDC is "USD Coin"/"2", and typed data uses the file\'s', () => {
    const sepolia = loadDeployment(84532);
    const mainnet = loadDeployment(8453);
    assert.deepEqual(sepolia.token.eip712, { name: "USDC", version: "2" });
    assert.deepEqual(mainnet.token.eip712, { name: "USD Coin", version: "2" });
    const typed = receiveAuthorizationTypedData(tokenDomain(8453, mainnet.token.address, mainnet.token.eip712), {
      from: mainnet.token.address,
      to: mainnet.token.address,
      value: 1n,
      validAfter: 0n,
      validBefore: 1n,
      nonce: `0x${"00".repeat(32)}`,
    });
    assert.equal(typed.domain.name, "USD Coin");
  });

  it("matches the chain where the token answers: DOMAIN_SEPARATOR on FiatToken, eip712Domain() where the token has EIP-5267", async () => {
    const { token } = h.chain.deployment;
    assert.deepEqual(await checkTokenDomain(h.chain.publicClient, 84532, token.address, token.eip712), { checked: true, by: "DOMAIN_SEPARATOR" });
    try {
      await checkTokenDomain(h.chain.publicClient, 84532, token.address, { name: "USD Coin", version: "2" });
      assert.fail("a wrong name passed");
    } catch (error) {
      assert.instanceOf(error, TokenDomainMismatchError);
      assert.include((error as Error).message, 'name() "USDC"');
    }
    // A token with EIP-5267 (the home-made test token, "USDC"/"2").
    const deployer = h.chain.accounts[LOCAL_ROLES.deployer]!;
    const other: Address = await deployTestContract(h.chain, deployer, testUsdcAbi, "TestUSDC", "TestUSDC.sol", [deployer.address]);
    assert.deepEqual(await checkTokenDomain(h.chain.publicClient, 84532, other, { name: "USDC", version: "2" }), { checked: true, by: "eip712Domain" });
    try {
      await checkTokenDomain(h.chain.publicClient, 84532, other, { name: "USDC", version: "1" });
      assert.fail("a wrong version passed");
    } catch (error) {
      assert.instanceOf(error, TokenDomainMismatchError);
    }
    // No code: nothing to compare.
    assert.deepEqual(await checkTokenDomain(h.chain.publicClient, 84532, h.chain.accounts[5]!.address, token.eip712), { checked: false });
  });

  it("the service refuses to start when the recorded domain is not the token's (as with \"USD Coin\" against Base Sepolia's USDC)", async () => {
    const deployment = { ...h.chain.deployment, token: { ...h.chain.deployment.token, eip712: { name: "USD Coin", version: "2" } } };
    let refused: unknown = null;
    try {
      const s = await createService(configFor(h.proxy.url), { deployment, logger: createLogger("silent") });
      await s.close();
    } catch (error) {
      refused = error;
    }
    assert.instanceOf(refused, TokenDomainMismatchError);
  });
});
