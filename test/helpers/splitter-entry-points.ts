import { erc20Abi, keccak256, parseSignature, toHex, zeroAddress, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { fiatTokenAbi, splitterAbi } from "../../src/generated/contracts.js";
import { permitTypedData, receiveAuthorizationTypedData, tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import type { LocalChain } from "../../dev/localchain/harness.js";
import { signWithViem } from "./signers.js";

/** One payment as the Splitter settles it: the key's four parts. */
export interface SplitterPayment {
  token: Address;
  recipient: Address;
  amount: bigint;
  reference: Hex;
}

/** Who takes part: the buyer whose tokens pay, and a stranger who submits signed payments. */
export interface PaymentParties {
  chain: LocalChain;
  splitter: Address;
  buyer: HDAccount;
  submitter: HDAccount;
}

/**
 * One way into the Splitter. `send` does what a wallet does for that entry point (approve, or sign a
 * permit or an authorization) and submits the payment; it resolves to the transaction hash, or rejects
 * with the revert. Every entry point settles the same key with the same split and the same `Paid`.
 */
export interface SplitterEntryPoint {
  name: string;
  send(parties: PaymentParties, payment: SplitterPayment): Promise<Hex>;
  /** Whom `Paid` names as payer: the buyer, or (a plain transfer) the payment address it paid. */
  payer(parties: PaymentParties, payment: SplitterPayment): Promise<Address>;
  /** Where the buyer's tokens wait when the Splitter refuses: nowhere (null) or the payment address. */
  holdsOnRefusal: boolean;
}

/** The payment's payment address, as the Splitter derives it. */
export function depositAddressOf({ chain, splitter }: PaymentParties, p: SplitterPayment): Promise<Address> {
  return chain.publicClient.readContract({
    address: splitter,
    abi: splitterAbi,
    functionName: "depositAddress",
    args: [p.token, p.recipient, p.amount, p.reference],
  });
}

const theBuyer = async ({ buyer }: PaymentParties) => buyer.address;

/** A minute-scale deadline on the chain's own clock (deterministic across runs). */
async function deadlineOf(chain: LocalChain): Promise<bigint> {
  const block = await chain.publicClient.getBlock();
  return block.timestamp + 3600n;
}

/** The buyer's receiveWithAuthorization to the Splitter, with the nonce the Splitter derives. */
async function signAuthorization({ chain, splitter, buyer }: PaymentParties, p: SplitterPayment) {
  const nonce = await chain.publicClient.readContract({
    address: splitter,
    abi: splitterAbi,
    functionName: "authorizationNonce",
    args: [p.recipient, p.reference],
  });
  const validBefore = await deadlineOf(chain);
  const signature = await signWithViem(
    buyer,
    receiveAuthorizationTypedData(tokenDomain(chain.deployment.chainId, p.token, chain.deployment.token.eip712), {
      from: buyer.address,
      to: splitter,
      value: p.amount,
      validAfter: 0n,
      validBefore,
      nonce,
    }),
  );
  return { validBefore, signature };
}

export const SPLITTER_ENTRY_POINTS: readonly SplitterEntryPoint[] = [
  {
    name: "pay (allowance)",
    payer: theBuyer,
    holdsOnRefusal: false,
    async send({ chain, splitter, buyer }, p) {
      const approval = await chain.wallet(buyer).writeContract({
        address: p.token,
        abi: erc20Abi,
        functionName: "approve",
        args: [splitter, p.amount],
        account: buyer,
        chain: chain.chain,
      });
      await chain.publicClient.waitForTransactionReceipt({ hash: approval });
      return chain.wallet(buyer).writeContract({
        address: splitter,
        abi: splitterAbi,
        functionName: "pay",
        args: [p.token, p.recipient, p.amount, p.reference],
        account: buyer,
        chain: chain.chain,
      });
    },
  },
  {
    name: "payWithPermit (EIP-2612)",
    payer: theBuyer,
    holdsOnRefusal: false,
    async send({ chain, splitter, buyer }, p) {
      const nonce = await chain.publicClient.readContract({ address: p.token, abi: fiatTokenAbi, functionName: "nonces", args: [buyer.address] });
      const deadline = await deadlineOf(chain);
      const signature = await signWithViem(
        buyer,
        permitTypedData(tokenDomain(chain.deployment.chainId, p.token, chain.deployment.token.eip712), {
          owner: buyer.address,
          spender: splitter,
          value: p.amount,
          nonce,
          deadline,
        }),
      );
      const { v, r, s } = parseSignature(signature);
      return chain.wallet(buyer).writeContract({
        address: splitter,
        abi: splitterAbi,
        functionName: "payWithPermit",
        args: [p.token, p.recipient, p.amount, p.reference, deadline, Number(v), r, s],
        account: buyer,
        chain: chain.chain,
      });
    },
  },
  {
    name: "payWithAuthorization (EIP-3009, v r s)",
    payer: theBuyer,
    holdsOnRefusal: false,
    async send(parties, p) {
      const { chain, splitter, buyer, submitter } = parties;
      const { validBefore, signature } = await signAuthorization(parties, p);
      const { v, r, s } = parseSignature(signature);
      return chain.wallet(submitter).writeContract({
        address: splitter,
        abi: splitterAbi,
        functionName: "payWithAuthorization",
        args: [p.token, buyer.address, p.recipient, p.amount, p.reference, 0n, validBefore, Number(v), r, s],
        account: submitter,
        chain: chain.chain,
      });
    },
  },
  {
    name: "payWithAuthorizationSignature (EIP-3009, bytes)",
    payer: theBuyer,
    holdsOnRefusal: false,
    async send(parties, p) {
      const { chain, splitter, buyer, submitter } = parties;
      const { validBefore, signature } = await signAuthorization(parties, p);
      return chain.wallet(submitter).writeContract({
        address: splitter,
        abi: splitterAbi,
        functionName: "payWithAuthorizationSignature",
        args: [p.token, buyer.address, p.recipient, p.amount, p.reference, 0n, validBefore, signature],
        account: submitter,
        chain: chain.chain,
      });
    },
  },
  {
    name: "settleDeposit (a plain transfer to the payment address)",
    payer: depositAddressOf,
    holdsOnRefusal: true,
    async send(parties, p) {
      const { chain, splitter, buyer, submitter } = parties;
      // A wallet is only ever shown the address of a valid payment: no transfer for an invalid one.
      if (p.amount !== 0n && p.recipient !== zeroAddress) {
        const deposit = await depositAddressOf(parties, p);
        const transfer = await chain.wallet(buyer).writeContract({
          address: p.token,
          abi: erc20Abi,
          functionName: "transfer",
          args: [deposit, p.amount],
          account: buyer,
          chain: chain.chain,
        });
        await chain.publicClient.waitForTransactionReceipt({ hash: transfer });
      }
      return chain.wallet(submitter).writeContract({
        address: splitter,
        abi: splitterAbi,
        functionName: "settleDeposit",
        args: [p.token, p.recipient, p.amount, p.reference],
        account: submitter,
        chain: chain.chain,
      });
    },
  },
  {
    name: "settleDepositFromAuthorization (x402: TransferWithAuthorization to the payment address)",
    payer: theBuyer,
    holdsOnRefusal: false,
    async send(parties, p) {
      const { chain, splitter, buyer, submitter } = parties;
      const to = await depositAddressOf(parties, p);
      const validBefore = await deadlineOf(chain);
      // The signer's own nonce, as x402 clients pick one: fresh for every authorization.
      const nonce = keccak256(toHex(`x402 authorization ${++x402Nonces}`));
      const signature = await signWithViem(
        buyer,
        transferAuthorizationTypedData(tokenDomain(chain.deployment.chainId, p.token, chain.deployment.token.eip712), {
          from: buyer.address,
          to,
          value: p.amount,
          validAfter: 0n,
          validBefore,
          nonce,
        }),
      );
      return chain.wallet(submitter).writeContract({
        address: splitter,
        abi: splitterAbi,
        functionName: "settleDepositFromAuthorization",
        args: [p.token, p.recipient, p.amount, p.reference, buyer.address, 0n, validBefore, nonce, signature],
        account: submitter,
        chain: chain.chain,
      });
    },
  },
];

/** Authorizations signed so far (each x402 authorization gets its own nonce). */
let x402Nonces = 0;

/** Sends through `entry` and waits for the receipt; rejects with the revert when it would revert. */
export async function payThrough(entry: SplitterEntryPoint, parties: PaymentParties, payment: SplitterPayment) {
  const hash = await entry.send(parties, payment);
  return parties.chain.publicClient.waitForTransactionReceipt({ hash });
}
