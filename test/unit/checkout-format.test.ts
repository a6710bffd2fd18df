import { assert } from "chai";
import { countdown, displayAmount, displayTime, networkOf, shortHex } from "../../src/checkout/format.js";
import { walletLinks } from "../../src/checkout/wallet-links.js";

describe("checkout words: networks, amounts, times, phone-wallet links", () => {
  it("names the network from its chain id, says test on Base Sepolia, and links the right explorer (none on the local chain)", () => {
    const hash = `0x${"ab".repeat(32)}` as const;
    const sepolia = networkOf(84532);
    assert.equal(sepolia.name, "Base Sepolia (test)");
    assert.isTrue(sepolia.test);
    assert.equal(sepolia.explorer!.name, "Sepolia Basescan");
    assert.equal(sepolia.explorer!.tx(hash), `https://sepolia.basescan.org/tx/${hash}`);
    const base = networkOf(8453);
    assert.equal(base.name, "Base");
    assert.isFalse(base.test);
    assert.equal(base.explorer!.tx(hash), `https://basescan.org/tx/${hash}`);
    assert.isNull(networkOf(84532, true).explorer);
    assert.equal(networkOf(1).name, "Ethereum");
    assert.equal(networkOf(999).name, "chain 999");
  });

  it("writes amounts from micro-units: cents always, trailing zeros trimmed beyond them, thousands grouped, no float", () => {
    const table: Array<[string | bigint, string]> = [
      ["12500000", "12.50 USDC"],
      ["12340000", "12.34 USDC"],
      ["12345000", "12.345 USDC"],
      ["1", "0.000001 USDC"],
      ["0", "0.00 USDC"],
      [1_250_000_000n, "1,250.00 USDC"],
      ["123456789012345678", "123,456,789,012.345678 USDC"],
      ["9007199254740993000001", "9,007,199,254,740,993.000001 USDC"], // beyond a double's precision
    ];
    for (const [units, text] of table) assert.equal(displayAmount(units, "USDC"), text, String(units));
    assert.throws(() => displayAmount(-1n, "USDC"), RangeError);
  });

  it("gives times in the buyer's zone with the zone named, and a countdown", () => {
    const at = Date.UTC(2026, 10, 22, 16, 5) / 1000;
    assert.equal(displayTime(at, "en-GB", "UTC"), "22 Nov 2026, 16:05 UTC");
    assert.match(displayTime(at, "en-GB", "Europe/Paris"), /17:05 CET$/);
    assert.equal(countdown(3547), "59:07 left");
    assert.equal(countdown(59), "0:59 left");
    assert.equal(countdown(7500), "2 h 05 min left");
    assert.equal(countdown(3 * 86_400 + 5), "3 days left");
    assert.equal(countdown(0), "expired");
    assert.equal(shortHex(`0x${"12".repeat(32)}`), "0x1212…1212");
  });

  it("offers only wallet links that keep the token out of every request: MetaMask's, with the page's fragment as its own", () => {
    const page = "https://pay.example.com/checkout/#/link/lk.k1.abc.def";
    const links = walletLinks(page);
    assert.deepEqual(
      links.map((l) => l.id),
      ["metamask"],
    );
    assert.equal(links[0]!.href, "https://link.metamask.io/dapp/pay.example.com/checkout/#/link/lk.k1.abc.def");
    for (const { href } of links) {
      const sent = new URL(href);
      assert.notInclude(`${sent.pathname}${sent.search}`, "lk.k1", "what a browser sends for the link holds no token");
    }
  });
});
