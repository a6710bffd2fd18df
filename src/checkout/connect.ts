import { discoverWallet, Wallet } from "./wallet.js";

/** Finds and connects the injected wallet on the right chain, or explains why it cannot. */
export async function connectWallet(chainId: number): Promise<Wallet> {
  const provider = await discoverWallet();
  if (!provider) throw new Error("No wallet found in this browser. Install or open a wallet (EIP-1193) and reload.");
  const wallet = await Wallet.connect(provider);
  await wallet.ensureChain(chainId);
  return wallet;
}

/** A wallet error in words: a refusal by the user reads as such. */
export function walletError(error: unknown): string {
  const e = error as { code?: number; message?: string };
  if (e?.code === 4001) return "You declined the request in your wallet.";
  return e?.message ? e.message.split("\n")[0]! : "The wallet failed.";
}
