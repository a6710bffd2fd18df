import { keccak256, stringToBytes, type Hex } from "viem";

/**
 * The pay page keeps, for the tab's session, what it needs to show a payment again after a reload:
 * a link page the payment it minted (so a reload shows the same payment, and "Paid" once it is paid,
 * instead of minting another), an intent page the transaction it sent (so "Paid" comes with the
 * explorer link and the way back). Kept in sessionStorage under the hash of the page's token: the
 * token itself stays only in the URL fragment. For a link, the minted intent is kept (the page
 * already holds it to verify; it is nowhere else); for an intent page, no token at all.
 */
export interface KeptPayment {
  /** Only for a link: the intent minted through it. */
  intent?: string;
  amountUnits: string;
  expiresAt: number;
  returnUrl?: string;
  /** The payment's reference, for the way back (`return_url` carries it with the transaction). */
  reference?: Hex;
  txHash?: Hex;
}

export function sessionKey(token: string): string {
  return `svc:pay:${keccak256(stringToBytes(token))}`;
}

export function recallPayment(token: string): KeptPayment | null {
  try {
    const raw = sessionStorage.getItem(sessionKey(token));
    return raw ? (JSON.parse(raw) as KeptPayment) : null;
  } catch {
    return null;
  }
}

export function keepPayment(token: string, payment: KeptPayment): void {
  try {
    sessionStorage.setItem(sessionKey(token), JSON.stringify(payment));
  } catch {
    // storage refused (a full quota): a reload mints a new payment, as before
  }
}

export function forgetPayment(token: string): void {
  try {
    sessionStorage.removeItem(sessionKey(token));
  } catch {
    // nothing kept
  }
}
