import type { Address, Chain, Hex } from "viem";
import { base, baseSepolia } from "viem/chains";
import { chainName } from "./format.js";

/** An EIP-1193 provider: what every injected wallet offers. */
export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export interface Announced {
  info: { name: string; rdns?: string; uuid: string; icon?: string };
  provider: Eip1193;
}

/**
 * Every injected wallet: the EIP-6963 announcements (one per wallet, duplicates by uuid dropped),
 * or `window.ethereum` alone when nothing announces itself.
 */
export async function discoverWallets(waitMs = 300): Promise<Announced[]> {
  const announced: Announced[] = [];
  const onAnnounce = (event: Event) => {
    const detail = (event as CustomEvent<Announced>).detail;
    if (detail?.provider && detail.info && !announced.some((a) => a.info.uuid === detail.info.uuid)) announced.push(detail);
  };
  window.addEventListener("eip6963:announceProvider", onAnnounce);
  window.dispatchEvent(new Event("eip6963:requestProvider"));
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  window.removeEventListener("eip6963:announceProvider", onAnnounce);
  if (announced.length) return announced;
  const injected = (window as unknown as { ethereum?: Eip1193 }).ethereum;
  return injected ? [{ info: { name: "Browser wallet", uuid: "window.ethereum" }, provider: injected }] : [];
}

/** The first injected wallet (kept for callers that do not choose). */
export async function discoverWallet(waitMs = 300): Promise<Eip1193 | null> {
  return (await discoverWallets(waitMs))[0]?.provider ?? null;
}

/** What `wallet_addEthereumChain` needs for the chains we serve, from viem's chain definitions. */
const CHAINS: Record<number, { chainName: string; rpcUrls: readonly string[]; blockExplorerUrls: string[] }> = Object.fromEntries(
  ([baseSepolia, base] as Chain[]).map((c) => [
    c.id,
    { chainName: c.name, rpcUrls: c.rpcUrls.default.http, blockExplorerUrls: c.blockExplorers ? [c.blockExplorers.default.url] : [] },
  ]),
);

/** What the page calls the local chain in a wallet (`npm start`'s chain has Base Sepolia's id, not its RPC). */
export const LOCAL_CHAIN_NAME = "Base Sepolia (local)";

export class Wallet {
  constructor(
    readonly provider: Eip1193,
    readonly account: Address,
  ) {}

  /** Asks the wallet for an account. */
  static async connect(provider: Eip1193): Promise<Wallet> {
    const accounts = (await provider.request({ method: "eth_requestAccounts" })) as Address[];
    if (!accounts[0]) throw new Error("the wallet shared no account");
    return new Wallet(provider, accounts[0]);
  }

  /**
   * Switches to `chainId`, adding the chain first when the wallet does not know it (EIP-3326,
   * EIP-3085). On a local chain (`localRpcUrl`, from /v1/capabilities) the chain is always added
   * first, with that URL: the local chain has Base Sepolia's id, and a wallet that switched to the
   * Base Sepolia it knows would send the payment to the public testnet.
   */
  async ensureChain(chainId: number, localRpcUrl?: string | null): Promise<void> {
    const onChain = async () => Number(await this.provider.request({ method: "eth_chainId" })) === chainId;
    const hexId = `0x${chainId.toString(16)}`;
    const switchChain = () => this.provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: hexId }] });
    if (localRpcUrl) {
      try {
        await this.provider.request({
          method: "wallet_addEthereumChain",
          params: [{ chainId: hexId, chainName: LOCAL_CHAIN_NAME, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: [localRpcUrl] }],
        });
      } catch (error) {
        if ((error as { code?: number }).code === 4001) throw error;
        // a wallet that keeps one RPC per chain id may refuse a second one: the page says what to do
      }
      if (!(await onChain())) await switchChain();
      if (!(await onChain())) throw new Error(`Switch your wallet to ${LOCAL_CHAIN_NAME} (${localRpcUrl}).`);
      return;
    }
    if (await onChain()) return;
    try {
      await switchChain();
    } catch (error) {
      if ((error as { code?: number }).code !== 4902 || !CHAINS[chainId]) throw error;
      await this.provider.request({
        method: "wallet_addEthereumChain",
        params: [{ chainId: hexId, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, ...CHAINS[chainId] }],
      });
      if (!(await onChain())) await switchChain(); // adding does not switch in every wallet
    }
    if (!(await onChain())) throw new Error(`Switch your wallet to ${chainName(chainId)}.`);
  }

  signTypedData(typedData: unknown): Promise<Hex> {
    const json = JSON.stringify(typedData, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    return this.provider.request({ method: "eth_signTypedData_v4", params: [this.account, json] }) as Promise<Hex>;
  }

  sendTransaction(tx: { to: Address; data: Hex }): Promise<Hex> {
    return this.provider.request({ method: "eth_sendTransaction", params: [{ from: this.account, to: tx.to, data: tx.data }] }) as Promise<Hex>;
  }

  /** Waits until the wallet's node has a receipt (once it is in a block: 200 ms on Base); throws when the transaction reverted. */
  async waitForReceipt(hash: Hex, pollMs = 250): Promise<{ blockNumber: string; status: string }> {
    for (;;) {
      const receipt = (await this.provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { blockNumber: string; status: string } | null;
      if (receipt) {
        if (receipt.status !== "0x1") throw new Error(`the transaction ${hash} reverted`);
        return receipt;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Whether the connected account is a contract (a smart wallet: a Safe, a smart account). */
  async hasCode(): Promise<boolean> {
    const code = (await this.provider.request({ method: "eth_getCode", params: [this.account, "latest"] })) as Hex | null;
    return !!code && code !== "0x";
  }

  /** eth_call from the connected account (a simulation of what it would send). */
  call(to: Address, data: Hex): Promise<Hex> {
    return this.provider.request({ method: "eth_call", params: [{ from: this.account, to, data }, "latest"] }) as Promise<Hex>;
  }
}
