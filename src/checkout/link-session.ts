import { keccak256, stringToBytes, type Hex } from "viem";

/**
 * A link page keeps the payment it minted for the tab's session, so a reload shows the same payment
 * (and "Paid" once it is paid) instead of minting another. Kept in sessionStorage under the hash of
 * the link token: the token itself stays only in the URL fragment. What is kept is the minted
 * intent (the page already holds it to verify), the amount shown, and the transaction once sent.
 */
export interface LinkPayment {
  intent: string;
  amountUnits: string;
  expiresAt: number;
  returnUrl?: string;
  txHash?: Hex;
}

export function linkKey(linkToken: string): string {
  return `svc:link:${keccak256(stringToBytes(linkToken))}`;
}

export function recallLinkPayment(linkToken: string): LinkPayment | null {
  try {
    const raw = sessionStorage.getItem(linkKey(linkToken));
    return raw ? (JSON.parse(raw) as LinkPayment) : null;
  } catch {
    return null;
  }
}

export function keepLinkPayment(linkToken: string, payment: LinkPayment): void {
  try {
    sessionStorage.setItem(linkKey(linkToken), JSON.stringify(payment));
  } catch {
    // storage refused (private mode quota): a reload mints a new payment, as before
  }
}

export function forgetLinkPayment(linkToken: string): void {
  try {
    sessionStorage.removeItem(linkKey(linkToken));
  } catch {
    // nothing kept
  }
}
