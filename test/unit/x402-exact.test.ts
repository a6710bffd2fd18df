import { assert } from "chai";
import { encodeFunctionResult, getAddress, parseAbi, serializeErc6492Signature, toHex, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import { ExactVerifier } from "../../src/x402/exact.js";
import { Eip3009Payload, X402_RESERVATION_STALE_MS, X402_REVERTED_PAYER_REFUSAL_MS, X402_SETTLE_POLL_MS, X402_SETTLE_WAIT_MS } from "../../src/x402/payload.js";
import { payloadRefusalMessage } from "../../src/x402/refusals.js";
import type { X402FacilitatorRequest } from "../../src/wire/index.js";

/**
 * x402 `exact` on EVM as this facilitator verifies it: the payload's shape (an EIP-3009
 * authorization), then @x402/evm's own verify over a read-only view of the chain, each refusal with
 * x402's `invalid_exact_evm_…` code and the payer. The chain is a fake node of our own: USDC's code
 * at the asset, the payer an EOA, and `transferWithAuthorization` simulated as the scenario says.
 */
const TOKEN = getAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e");
const PAY_TO = getAddress("0x3333333333333333333333333333333333333333");
const RELAYER = getAddress("0xDF4BFfA1ed9D583f26ae9F749C82Cbd2D40fcA16");
const payer = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const stranger = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const USDC = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function authorizationState(address, bytes32) view returns (bool)",
]);

/** What the fake node answers: the simulated transfer's revert (none: it succeeds), and USDC's state for the diagnosis. */
interface Node {
  reverts?: string;
  balance?: bigint;
  used?: boolean;
  tokenCode?: Hex;
}

function fakeClient(node: Node): PublicClient {
  const client = {
    getCode: async ({ address }: { address: Address }) => (getAddress(address) === TOKEN ? (node.tokenCode ?? "0x6080604052") : "0x"),
    readContract: async (args: { functionName: string }) => {
      if (args.functionName === "transferWithAuthorization") {
        if (node.reverts) throw new Error(node.reverts);
        return undefined;
      }
      if (args.functionName === "tryAggregate") {
        const answers: Hex[] = [
          encodeFunctionResult({ abi: USDC, functionName: "balanceOf", result: node.balance ?? 10n ** 12n }),
          encodeFunctionResult({ abi: USDC, functionName: "name", result: "USDC" }),
          encodeFunctionResult({ abi: USDC, functionName: "version", result: "2" }),
          encodeFunctionResult({ abi: USDC, functionName: "authorizationState", result: node.used ?? false }),
        ];
        return answers.map((returnData) => ({ success: true, returnData }));
      }
      throw new Error(`the fake node has no ${args.functionName}`);
    },
    verifyTypedData: async () => {
      throw new Error("an EOA's signature is checked offline");
    },
  };
  return client as unknown as PublicClient;
}

interface Case {
  scheme?: string;
  network?: string;
  accepted?: Partial<{ scheme: string; network: string }>;
  extra?: Record<string, unknown> | undefined;
  amount?: bigint;
  signed?: Partial<{ to: Address; value: bigint; validAfter: bigint; validBefore: bigint; by: typeof payer }>;
  signature?: (signature: Hex) => Hex;
}

async function request(c: Case = {}): Promise<X402FacilitatorRequest> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const amount = c.amount ?? 1_000_000n;
  const authorization = {
    from: payer.address,
    to: c.signed?.to ?? PAY_TO,
    value: c.signed?.value ?? amount,
    validAfter: c.signed?.validAfter ?? 0n,
    validBefore: c.signed?.validBefore ?? now + 600n,
    nonce: toHex(99n, { size: 32 }),
  };
  const signed = await (c.signed?.by ?? payer).signTypedData(
    transferAuthorizationTypedData(
      tokenDomain(Number((c.network ?? "eip155:84532").split(":")[1]), TOKEN, { name: "USDC", version: "2" }),
      authorization,
    ) as never,
  );
  const requirements = {
    scheme: c.scheme ?? "exact",
    network: c.network ?? "eip155:84532",
    amount: amount.toString(),
    asset: TOKEN,
    payTo: PAY_TO,
    maxTimeoutSeconds: 300,
    ...("extra" in c ? (c.extra ? { extra: c.extra } : {}) : { extra: { name: "USDC", version: "2" } }),
  };
  const payload = {
    signature: c.signature ? c.signature(signed) : signed,
    authorization: Object.fromEntries(Object.entries(authorization).map(([k, v]) => [k, String(v)])),
  };
  return { x402Version: 2, paymentPayload: { x402Version: 2, accepted: { ...requirements, ...c.accepted }, payload }, paymentRequirements: requirements };
}

const verify = async (c: Case = {}, node: Node = {}) => new ExactVerifier(fakeClient(node), () => RELAYER).verify(await request(c));
const refusedWith = async (c: Case, reason: string, node: Node = {}) =>
  assert.deepEqual(await verify(c, node), { isValid: false, invalidReason: reason, payer: payer.address });

describe("x402 exact: the payload's shape and @x402/evm's verify on this facilitator's view of the chain", () => {
  describe("the payload: an EIP-3009 authorization and its signature, x402's strings", () => {
    const good = async () => (await request()).paymentPayload.payload as { signature: Hex; authorization: Record<string, string> };

    it("reads a signed authorization: addresses in any case, integers as decimal strings, a 32-byte nonce", async () => {
      const p = await good();
      assert.isTrue(Eip3009Payload.safeParse(p).success);
      const lower = { ...p, authorization: { ...p.authorization, from: p.authorization.from!.toLowerCase(), to: p.authorization.to!.toLowerCase() } };
      assert.isTrue(Eip3009Payload.safeParse(lower).success);
      // Capitals are no checksum: x402's own verify reads an address in any case.
      const upper = (a: string) => `0x${a.slice(2).toUpperCase()}`;
      for (const field of ["from", "to"]) {
        const capitals = { ...p, authorization: { ...p.authorization, [field]: upper(stranger.address) } };
        assert.isTrue(Eip3009Payload.safeParse(capitals).success, field);
      }
      assert.isTrue(Eip3009Payload.safeParse({ ...p, authorization: { ...p.authorization, nonce: upper(p.authorization.nonce!) } }).success);
      const widest = { ...p, authorization: { ...p.authorization, value: "9".repeat(78), validAfter: "9".repeat(78), validBefore: "9".repeat(78) } };
      assert.isTrue(Eip3009Payload.safeParse(widest).success);
    });

    it("refuses each field out of its form, and names the field (never its value) in the refusal", async () => {
      const p = await good();
      const bad: Array<[string, Record<string, unknown>]> = [
        ["signature", { ...p, signature: "0x" }],
        ["signature", { ...p, signature: `${p.signature}0` }],
        ["signature", { ...p, signature: `z${p.signature}` }],
        ["signature", { ...p, signature: `${p.signature}zz` }],
        ["signature", { ...p, signature: p.signature.slice(2) }],
        ["authorization.from", { ...p, authorization: { ...p.authorization, from: "0x1234" } }],
        ["authorization.to", { ...p, authorization: { ...p.authorization, to: "payTo" } }],
        ...["value", "validAfter", "validBefore"].flatMap(
          (field): Array<[string, Record<string, unknown>]> => [
            [`authorization.${field}`, { ...p, authorization: { ...p.authorization, [field]: "-1" } }],
            [`authorization.${field}`, { ...p, authorization: { ...p.authorization, [field]: "1.5" } }],
            [`authorization.${field}`, { ...p, authorization: { ...p.authorization, [field]: "" } }],
            [`authorization.${field}`, { ...p, authorization: { ...p.authorization, [field]: "x1" } }],
            [`authorization.${field}`, { ...p, authorization: { ...p.authorization, [field]: "1x" } }],
            [`authorization.${field}`, { ...p, authorization: { ...p.authorization, [field]: "9".repeat(79) } }],
          ],
        ),
        ["authorization.nonce", { ...p, authorization: { ...p.authorization, nonce: toHex(99n, { size: 31 }) } }],
        ["authorization.nonce", { ...p, authorization: { ...p.authorization, nonce: `${p.authorization.nonce}0` } }],
        ["authorization.nonce", { ...p, authorization: { ...p.authorization, nonce: `0${p.authorization.nonce}` } }],
        ["authorization.nonce", { ...p, authorization: { ...p.authorization, nonce: `0x${"g".repeat(64)}` } }],
        ["authorization", { signature: p.signature }],
      ];
      for (const [field, payload] of bad) {
        const parsed = Eip3009Payload.safeParse(payload);
        assert.isFalse(parsed.success, field);
        const message = payloadRefusalMessage(payload, parsed.error?.issues[0]);
        assert.include(message, `: ${field} is missing or not of its form`, field);
      }
    });
  });

  describe("the verdict: x402's own rules, its codes, the payer", () => {
    it("answers valid for a payer's authorization of the amount to payTo, within its window, whose transfer simulates", async () => {
      assert.deepEqual(await verify(), { isValid: true, payer: payer.address });
    });

    it("refuses a signature not the payer's over this authorization", async () => {
      await refusedWith({ signed: { by: stranger } }, "invalid_exact_evm_signature");
    });

    it("refuses an authorization to another address than payTo", async () => {
      await refusedWith({ signed: { to: stranger.address } }, "invalid_exact_evm_recipient_mismatch");
    });

    it("refuses an authorization past its validBefore (6 s of margin), or before its validAfter", async () => {
      const now = BigInt(Math.floor(Date.now() / 1000));
      await refusedWith({ signed: { validBefore: now + 2n } }, "invalid_exact_evm_payload_authorization_valid_before");
      await refusedWith({ signed: { validAfter: now + 3600n } }, "invalid_exact_evm_payload_authorization_valid_after");
    });

    it("refuses an authorization of another value than the amount", async () => {
      await refusedWith({ signed: { value: 999_999n } }, "invalid_exact_evm_payload_authorization_value_mismatch");
    });

    it("refuses another scheme, network, or requirements without the token's EIP-712 domain", async () => {
      await refusedWith({ accepted: { scheme: "upto" } }, "invalid_exact_evm_scheme");
      await refusedWith({ accepted: { network: "eip155:8453" } }, "invalid_exact_evm_network_mismatch");
      await refusedWith({ extra: undefined }, "invalid_exact_evm_missing_eip712_domain");
    });

    it("refuses an undeployed account's ERC-6492 signature: no factory is allowed", async () => {
      const factory = getAddress("0x4444444444444444444444444444444444444444");
      await refusedWith(
        { signature: (signature) => serializeErc6492Signature({ address: factory, data: "0x1234", signature }) },
        "eip6492_factory_not_allowed",
      );
    });

    it("refuses an asset with no code", async () => {
      // On a network no other test verifies on: x402 keeps an asset found to be a contract for a while.
      await refusedWith({ network: "eip155:8453" }, "asset_not_deployed_contract", { tokenCode: "0x" });
    });

    it("diagnoses a transfer that fails when simulated: the nonce used (a replay), the balance short, or the failure itself", async () => {
      await refusedWith({}, "invalid_exact_evm_nonce_already_used", { reverts: "FiatTokenV2: authorization is used or canceled", used: true });
      await refusedWith({}, "invalid_exact_evm_insufficient_balance", { reverts: "ERC20: transfer amount exceeds balance", balance: 999_999n });
      await refusedWith({}, "invalid_exact_evm_transaction_simulation_failed", { reverts: "execution reverted" });
    });
  });

  describe("the settlement's clocks", () => {
    it("waits for a settlement less than x402's client does (90 s), asking for its receipt more often than a second", () => {
      assert.isBelow(X402_SETTLE_WAIT_MS, 90_000);
      assert.isBelow(X402_SETTLE_POLL_MS, 1000);
    });

    it("takes over a settle's reservation only well after its longest run (10 minutes); refuses a payer whose settlement reverted for an hour", () => {
      assert.equal(X402_RESERVATION_STALE_MS, 10 * 60 * 1000);
      assert.isAbove(X402_RESERVATION_STALE_MS, X402_SETTLE_WAIT_MS);
      assert.equal(X402_REVERTED_PAYER_REFUSAL_MS, 60 * 60 * 1000);
    });
  });
});
