import { assert } from "chai";
import { parseGwei, parseSignature, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { EIP712_DOMAIN_TYPE, tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import { fiatTokenAbi } from "../../src/generated/contracts.js";
import { useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";

/** Holds against strangers and merchants who would make the service pay for nothing (DESIGN v7, "Holds"). */
describe("holds: attacks", function () {
  this.timeout(120_000);
  // Blocks ordered by tip: a buyer's own transaction can be mined before the escrow call it races.
  const h = useService({}, { chain: { mempoolOrder: "priority" } });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const nowSeconds = () => Math.floor(h.clock.now() / 1000);

  async function post(path: string, body: object, status = 200) {
    const res = await h.api.post(path).send(body);
    assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  const create = () =>
    post("/v1/holds", { recipient: merchant().address, amount: "50.00", capture_before: nowSeconds() + 3600, refund_before: nowSeconds() + 86_400 });
  async function authorize(checkoutToken: string, payer = buyer(), status = 200) {
    const resolved = await post("/v1/holds/resolve", { hold: checkoutToken, payer: payer.address });
    return post("/v1/holds/authorize", { hold: checkoutToken, payer: payer.address, signature: signWithMetaMask(payer, resolved.typed_data) }, status);
  }
  async function settle(sent: { tx_hash: Hex }) {
    await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.tx_hash });
    await h.chain.mine(3);
    await h.service.holdOperator!.follow();
  }

  it("a stranger who uses the hold's id as its own ERC-3009 nonce first changes nothing: the buyer's authorization names the payer", async () => {
    const created = await create();
    // Anyone may submit a TransferWithAuthorization of 0 from its own account: USDC then records
    // AuthorizationUsed(stranger, hold_id), the same event the buyer's authorization leaves.
    const { deployment } = h.service;
    const typed = transferAuthorizationTypedData(tokenDomain(deployment.chainId, deployment.token.address, deployment.token.eip712), {
      from: stranger().address,
      to: stranger().address,
      value: 0n,
      validAfter: 0n,
      validBefore: BigInt(nowSeconds() + 3600),
      nonce: created.hold_id as Hex,
    });
    const signature = await stranger().signTypedData(typed as never);
    const { v, r, s } = parseSignature(signature);
    const planted = await h.chain.wallet(stranger()).writeContract({
      address: deployment.token.address,
      abi: fiatTokenAbi,
      functionName: "transferWithAuthorization",
      args: [stranger().address, stranger().address, 0n, 0n, typed.message.validBefore, created.hold_id, Number(v), r, s],
      chain: null,
      account: stranger(),
    } as never);
    await h.chain.publicClient.waitForTransactionReceipt({ hash: planted });
    await settle(await authorize(created.checkout_token));
    const held = await post("/v1/holds/state", { hold: created.hold });
    assert.equal(held.payer, buyer().address, "the payer is the one whose authorization the escrow holds");
    assert.equal(held.state, "AUTHORIZED");
    await settle(await post("/v1/holds/capture", { hold: created.hold, amount: "10.00" }));
    assert.equal((await post("/v1/holds/state", { hold: created.hold })).captured_units, "10000000");
  });

  it("a capture below the smallest payment is refused with nothing sent, unless it is what is left", async () => {
    const created = await create();
    await settle(await authorize(created.checkout_token));
    const operator = h.service.holdOperator!.operator!;
    const nonce = await h.chain.publicClient.getTransactionCount({ address: operator });
    const dust = await post("/v1/holds/capture", { hold: created.hold, amount: "0.000001" }, 400);
    assert.equal(dust.error, "AMOUNT_OUT_OF_BOUNDS");
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: operator }), nonce, "no transaction sent");
    await settle(await post("/v1/holds/capture", { hold: created.hold, amount: "49.999999" }));
    await settle(await post("/v1/holds/capture", { hold: created.hold, amount: "0.000001" }));
    assert.equal((await post("/v1/holds/state", { hold: created.hold })).state, "CAPTURED");
  });

  it("a hold one buyer authorized is not authorized again by another: nothing sent, no second payment locked in escrow", async () => {
    const created = await create();
    await settle(await authorize(created.checkout_token));
    const operator = h.service.holdOperator!.operator!;
    const nonce = await h.chain.publicClient.getTransactionCount({ address: operator });
    assert.equal((await authorize(created.checkout_token, stranger(), 409)).error, "HOLD_ALREADY_AUTHORIZED");
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: operator }), nonce, "no transaction sent");
  });

  it("a buyer whose authorization reverted on chain (cancelled under the call) is refused for a while: the relayer pays once", async () => {
    const { publicClient, testClient } = h.chain;
    const { deployment } = h.service;
    const created = await create();
    const resolved = await post("/v1/holds/resolve", { hold: created.checkout_token, payer: buyer().address });
    const signature = signWithMetaMask(buyer(), resolved.typed_data);
    await testClient.setAutomine(false);
    const sent = await post("/v1/holds/authorize", { hold: created.checkout_token, payer: buyer().address, signature });
    // The buyer cancels its ERC-3009 authorization with a higher tip: mined first, the escrow's authorize reverts.
    const nonce = resolved.typed_data.message.nonce as Hex;
    const cancel = await buyer().signTypedData({
      domain: tokenDomain(deployment.chainId, deployment.token.address, deployment.token.eip712),
      types: {
        EIP712Domain: EIP712_DOMAIN_TYPE,
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: buyer().address, nonce },
    } as never);
    const { v, r, s } = parseSignature(cancel);
    await h.chain.wallet(stranger()).writeContract({
      address: deployment.token.address,
      abi: fiatTokenAbi,
      functionName: "cancelAuthorization",
      args: [buyer().address, nonce, Number(v), r, s],
      gas: 200_000n,
      maxPriorityFeePerGas: parseGwei("100"),
      maxFeePerGas: parseGwei("200"),
      chain: null,
      account: stranger(),
    } as never);
    await testClient.mine({ blocks: 1 });
    await testClient.setAutomine(true);
    assert.equal((await publicClient.waitForTransactionReceipt({ hash: sent.tx_hash })).status, "reverted");
    await settle(sent);

    const operator = h.service.holdOperator!.operator!;
    const before = await publicClient.getTransactionCount({ address: operator });
    const next = await create();
    assert.equal((await authorize(next.checkout_token, buyer(), 400)).error, "TRANSACTION_REVERTED");
    assert.equal(await publicClient.getTransactionCount({ address: operator }), before, "no transaction sent");
  });

  it("two buyers authorizing one hold at once: one authorization is sent, the other is HOLD_BUSY", async () => {
    const { publicClient, testClient } = h.chain;
    const created = await create();
    const operator = h.service.holdOperator!.operator!;
    const before = await publicClient.getTransactionCount({ address: operator });
    await testClient.setAutomine(false);
    try {
      await authorize(created.checkout_token, buyer());
      assert.equal((await authorize(created.checkout_token, stranger(), 409)).error, "HOLD_BUSY");
      assert.equal(await publicClient.getTransactionCount({ address: operator, blockTag: "pending" }), before + 1, "one authorization sent");
    } finally {
      await testClient.setAutomine(true);
      await testClient.mine({ blocks: 1 });
    }
  });
});
