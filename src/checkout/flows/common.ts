import { isAddressEqual, type Address, type Hex } from "viem";
import { answerOf } from "../api.js";
import { connectWallet, walletError } from "../connect.js";
import { errorPage, setTitle, transactionLink } from "../page.js";
import { button, type statusLine } from "../ui.js";
import { explain } from "../words.js";
import type { Wallet } from "../wallet.js";

export type Status = ReturnType<typeof statusLine>;

/**
 * Calls the API for the page's token; on an error, renders the page title and the explanation
 * (an already-paid intent reads as good news) and returns null.
 */
export async function loadOrExplain<T>(title: string, call: Promise<T>, status: Status): Promise<T | null> {
  const answer = await answerOf(call);
  if (answer.ok) return answer.body;
  const b = answer.body;
  status.set(b.error === "PAYMENT_ALREADY_PROCESSED" ? "ok" : "error", explain(b.error, b.action, b.retry_after));
  setTitle(/EXPIRED$/.test(b.error ?? "") ? `${title}: expired` : title);
  errorPage(title, status.node);
  return null;
}

/**
 * A button that connects the wallet on `chainId`, insists on the expected account, sends one
 * transaction (or none, when `send` finds nothing to do), waits for it, and reports.
 */
export function transactionButton(options: {
  id: string;
  label: string;
  chainId: number;
  status: Status;
  expected: { account: Address; role: string };
  pending: string;
  /** The transaction sent, or null when there was nothing to send (done says why). */
  send: (wallet: Wallet) => Promise<Hex | null>;
  done: (hash: Hex | null) => string;
}): HTMLButtonElement {
  const { status } = options;
  const self: HTMLButtonElement = button(options.id, options.label, async () => {
    try {
      const wallet = await connectWallet(options.chainId);
      if (!isAddressEqual(wallet.account, options.expected.account)) {
        status.set("error", `Connect the ${options.expected.role} wallet ${options.expected.account}.`);
        return;
      }
      status.set("wait", options.pending);
      const hash = await options.send(wallet);
      if (hash) await wallet.waitForReceipt(hash);
      self.remove();
      document.getElementById("wallet-notice")?.remove();
      status.set("ok", options.done(hash), hash ? transactionLink(hash) : null);
    } catch (error) {
      status.set("error", walletError(error));
    }
  });
  return self;
}
