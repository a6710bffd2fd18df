import { chooseWallet } from "./chooser.js";
import { pageContext } from "./page.js";
import { discoverWallets, Wallet } from "./wallet.js";

/** Finds (asking which, when there are several) and connects the injected wallet on the right chain, or explains why it cannot. */
export async function connectWallet(chainId: number): Promise<Wallet> {
  const chosen = await chooseWallet(await discoverWallets());
  if (!chosen) throw new Error("No wallet chosen. Open this page in a wallet app, or install a browser wallet and reload.");
  const wallet = await Wallet.connect(chosen.provider);
  await wallet.ensureChain(chainId, pageContext().localRpcUrl);
  return wallet;
}

/** A wallet error in words: a refusal by the user reads as such. */
export function walletError(error: unknown): string {
  const e = error as { code?: number; message?: string };
  if (e?.code === 4001) return "You declined the request in your wallet. Nothing was sent or signed; you can try again.";
  return e?.message ? e.message.split("\n")[0]! : "The wallet failed.";
}
