import { existsSync, mkdirSync } from "node:fs";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import type { Address, Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { LOCAL_ROLES, localAccount, type LocalChain } from "../../dev/localchain/harness.js";
import { listen, type Service } from "../../src/service.js";
import { signWithMetaMask } from "./signers.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = "test-results";

/** Debian's Chromium, headless, with no background traffic (the machine has no network). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface TestWalletOptions {
  /** Answer typed-data signing with "method not supported" (a wallet without EIP-712). */
  noTypedData?: boolean;
  /**
   * Misbehave on typed data: `otherKey` signs with another account (as a wallet signing over another
   * domain would: the token refuses it), `long` answers a signature longer than 65 bytes (a smart account's).
   */
  typedDataSignature?: "otherKey" | "long";
  /** The chain the wallet starts on; it must be asked to switch (and first to add it, when `unknownChain`). */
  startChainId?: number;
  unknownChain?: boolean;
  /** Runs before the wallet sends a transaction (e.g. someone else submits the same call first). */
  beforeSend?: (tx: { to: Address; data: Hex }) => Promise<void>;
  /**
   * A smart wallet: the account the page sees (a Safe) and how it signs typed data (its owners'
   * ERC-1271 signature). Its transactions are relayed by the signing key's account.
   */
  smartAccount?: { address: Address; signTypedData: (typed: never) => Promise<Hex> };
  /** The buyer says no: signing and sending answer 4001 (user rejected). */
  refuse?: boolean;
  /** Another wallet in the same browser: its own EIP-6963 identity, its own request log, no window.ethereum. */
  second?: { name: string; uuid: string; rdns: string };
}

/**
 * Injects an EIP-1193 wallet (announced by EIP-6963 and as window.ethereum) that signs with a local
 * account and sends to the local chain. Page requests cross into Node through an exposed binding.
 * Typed data is signed as MetaMask does: exactly the JSON the page hands `eth_signTypedData_v4`,
 * with `@metamask/eth-sig-util` `signTypedData` V4 (nothing stripped or added). Given a page's
 * browser context instead of the page, every page of it has the wallet (a popup the page opens too).
 */
export async function injectWallet(
  page: Pick<Page, "exposeBinding" | "addInitScript">,
  chain: LocalChain,
  account: HDAccount,
  options: TestWalletOptions = {},
): Promise<{ requests: string[]; addedChains: unknown[] }> {
  const requests: string[] = [];
  /** Every chain the page asked the wallet to add (EIP-3085's parameters). */
  const addedChains: unknown[] = [];
  const wallet = chain.wallet(account);
  let current = options.startChainId ?? chain.chain.id;
  let known = !options.unknownChain;
  const binding = options.second ? `__svcTestWallet_${options.second.uuid.replace(/[^a-z0-9]/gi, "")}` : "__svcTestWallet";
  await page.exposeBinding(binding, async (_source, { method, params }: { method: string; params?: unknown[] }) => {
    requests.push(method);
    if (options.refuse && (method === "eth_signTypedData_v4" || method === "eth_sendTransaction"))
      return { error: { code: 4001, message: "User rejected the request." } };
    try {
      switch (method) {
        case "eth_requestAccounts":
        case "eth_accounts":
          return { result: [options.smartAccount?.address ?? account.address] };
        case "eth_chainId":
          return { result: `0x${current.toString(16)}` };
        case "wallet_addEthereumChain":
          addedChains.push(params?.[0]);
          known = Number((params?.[0] as { chainId: string } | undefined)?.chainId) === chain.chain.id || known;
          return { result: null };
        case "wallet_switchEthereumChain": {
          const wanted = Number((params?.[0] as { chainId: string } | undefined)?.chainId);
          if (wanted !== chain.chain.id || !known) return { error: { code: 4902, message: "unknown chain" } };
          current = wanted;
          return { result: null };
        }
        case "eth_signTypedData_v4":
          if (options.noTypedData) return { error: { code: -32601, message: "method not supported" } };
          if (typeof params?.[1] !== "string") return { error: { code: -32602, message: "eth_signTypedData_v4 takes the typed data as a JSON string" } };
          if (options.smartAccount) return { result: await options.smartAccount.signTypedData(JSON.parse(params[1]) as never) };
          {
            const signer = options.typedDataSignature === "otherKey" ? localAccount(LOCAL_ROLES.firstUser + 9) : account;
            const signature = signWithMetaMask(signer, JSON.parse(params[1]));
            return { result: options.typedDataSignature === "long" ? `${signature}${"00".repeat(32)}` : signature };
          }
        case "eth_sendTransaction": {
          if (current !== chain.chain.id) return { error: { code: 4901, message: "wrong chain" } };
          const tx = params![0] as { to: Address; data: Hex };
          await options.beforeSend?.(tx);
          return { result: await wallet.sendTransaction({ account, chain: chain.chain, to: tx.to, data: tx.data }) };
        }
        default:
          return { result: await chain.provider.request({ method, params: params ?? [] }) };
      }
    } catch (error) {
      return { error: { code: (error as { code?: number }).code ?? -32603, message: (error as Error).message.split("\n")[0] } };
    }
  });
  // A string, not a function: the test runner's transpiler would wrap a function in helpers the page lacks.
  const info = options.second ?? { uuid: "00000000-0000-4000-8000-000000000001", name: "Test Wallet", rdns: "test.wallet" };
  await page.addInitScript(`(() => {
    const call = window[${JSON.stringify(binding)}];
    const provider = {
      isTestWallet: true,
      async request(args) {
        const answer = await call(args);
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
      on() {},
      removeListener() {},
    };
    const info = { ...${JSON.stringify(info)}, icon: "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'/>" };
    window.addEventListener("eip6963:requestProvider", () =>
      window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) })),
    );
    ${options.second ? "" : "window.ethereum = provider;"}
  })();`);
  return { requests, addedChains };
}

/** Waits for the checkout's status line to reach `state` (ok, wait, error) and returns its text. */
export async function statusOf(page: Page, state: "ok" | "wait" | "error", text?: string | RegExp, timeout = 30_000): Promise<string> {
  // A flow passes through several messages of one state ("Sign…", then "sent…"): `text` names the one awaited.
  const locator = page.locator(`#status[data-state="${state}"]`, text === undefined ? undefined : { hasText: text });
  await locator.waitFor({ timeout });
  return (await locator.textContent()) ?? "";
}

/** The pages' two screens, each with a locale and time zone of its own (dates and amounts are formatted for them). */
export const SCREEN_SIZES = [
  { name: "phone", width: 390, height: 844, locale: "en-GB", timezoneId: "Europe/Paris" },
  { name: "desktop", width: 1280, height: 800, locale: "en-US", timezoneId: "America/New_York" },
] as const;

/** A capability token (intent, link, setup, subscription, cancel, approve, refund, manage): prefix.key.payload.mac. */
const CAPABILITY_IN_URL = /(^|[^A-Za-z0-9_-])(pi|lk|lm|st|sc|ct|at|rt|ho|hc)\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/;

/** The service served on a port of its own for one test, and its page. */
export interface CheckoutSession {
  /** The suite's Chromium. */
  readonly browser: Browser;
  readonly page: Page;
  /** The served API's origin (the checkout is at `${api}/checkout/`). */
  readonly api: string;
  /** Every URL the page requested. */
  readonly requested: string[];
}

export interface CheckoutSessionOptions {
  /** The page's viewport, locale, permissions, … (default: a phone). */
  page?: BrowserContextOptions;
  /** Runs before the page and the server close (a screenshot, a node of the test's own to stop); they close even when it throws. */
  beforeClose?: (test: Mocha.Test | undefined, session: CheckoutSession) => Promise<void>;
  /**
   * After a passing test: no capability token in the path or query of any request the page made or
   * any link it shows (the fragment is where a token belongs: no server, log or Referer sees it).
   */
  noCapabilityInUrls?: boolean;
}

/**
 * Mocha hooks for a suite of checkout pages: one Chromium for the suite; before each test the suite's
 * service served on a port of its own and a fresh page; after it, `beforeClose`, then both closed.
 */
export function useCheckoutSession(service: () => Service, options: CheckoutSessionOptions = {}): CheckoutSession {
  let browser: Browser | undefined;
  let current: { page: Page; api: string; close: () => Promise<void>; requested: string[] } | undefined;
  const session: CheckoutSession = {
    get browser() {
      return browser!;
    },
    get page() {
      return current!.page;
    },
    get api() {
      return current!.api;
    },
    get requested() {
      return current!.requested;
    },
  };
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    const running = await listen(service());
    const page = await browser!.newPage(options.page ?? { viewport: { width: 390, height: 844 } });
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    current = { page, api: running.apiUrl, close: running.close, requested };
  });
  afterEach(async function () {
    const { page, close, requested } = current!;
    let links: string[] = [];
    try {
      await options.beforeClose?.(this.currentTest, session);
      if (options.noCapabilityInUrls)
        links = await page.locator("a[href]").evaluateAll((anchors) => anchors.map((a) => (a as unknown as { href: string }).href));
    } finally {
      await page.close();
      await close();
    }
    if (!options.noCapabilityInUrls || this.currentTest?.state !== "passed") return;
    for (const url of [...requested, ...links]) {
      if (!/^https?:/.test(url)) continue;
      const { pathname, search } = new URL(url);
      // Decoded: a URL nested in a query (a wallet's `?url=…`) carries the token percent-encoded.
      if (CAPABILITY_IN_URL.test(decodeURIComponent(`${pathname}${search}`))) throw new Error(`a capability in ${url.split("?")[0]}`);
    }
    if (requested.length === 0) throw new Error("the page requested nothing");
  });
  return session;
}
