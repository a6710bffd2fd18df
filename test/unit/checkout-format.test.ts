import { assert } from "chai";
import {
  countdown,
  displayAmount,
  displayDay,
  displayTime,
  hexGroups,
  MONTH_SECONDS,
  networkOf,
  periodWords,
  shortHex,
  subscriptionWords,
  transferRequest,
} from "../../src/checkout/format.js";
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

  it("says a period in its largest whole unit: months, weeks, days, hours, minutes, seconds", () => {
    assert.equal(periodWords(MONTH_SECONDS), "every month");
    assert.equal(periodWords(3 * MONTH_SECONDS), "every 3 months");
    assert.equal(periodWords(604_800), "every week");
    assert.equal(periodWords(2 * 604_800), "every 2 weeks");
    assert.equal(periodWords(30 * 86_400), "every 30 days");
    assert.equal(periodWords(86_400), "every day");
    assert.equal(periodWords(6 * 3600), "every 6 hours");
    assert.equal(periodWords(90), "every 90 seconds");
    assert.equal(periodWords(1), "every second");
  });

  it("names a subscription as people say it, with its next charge as a day (the year only when it is not this one)", () => {
    const now = Date.UTC(2026, 10, 24, 12) / 1000;
    const sub = { recipient: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", amount_units: "9990000", period: 30 * 86_400 };
    const dec24 = Date.UTC(2026, 11, 24, 9) / 1000;
    assert.equal(
      subscriptionWords({ ...sub, next_charge_at: dec24, next_charge_due: false }, "USDC", now, "en-GB", "UTC"),
      "9.99 USDC every 30 days to 0x90F7…b906, next charge on 24 Dec",
    );
    assert.equal(
      subscriptionWords({ ...sub, next_charge_at: now - 5, next_charge_due: true }, "USDC", now, "en-GB", "UTC"),
      "9.99 USDC every 30 days to 0x90F7…b906, next charge due now",
    );
    assert.equal(
      subscriptionWords({ ...sub, next_charge_at: null, next_charge_due: false }, "USDC", now, "en-GB", "UTC"),
      "9.99 USDC every 30 days to 0x90F7…b906, no further charge",
    );
    assert.equal(displayDay(Date.UTC(2028, 0, 3) / 1000, now, "en-GB", "UTC"), "3 Jan 2028");
  });

  it("groups an address or hash in fours after 0x, every digit kept", () => {
    const address = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const groups = hexGroups(address);
    assert.deepEqual(groups.slice(0, 2), ["0x90F7", "9bf6"]);
    assert.equal(groups.length, 10);
    assert.equal(groups.join(""), address);
    assert.equal(hexGroups(`0x${"ab".repeat(32)}`).length, 16);
  });

  it("writes an EIP-681 transfer request: token, chain id, the payment address and the amount in units", () => {
    const token = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
    const to = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    assert.equal(transferRequest(token, 84532, to, "12500000"), `ethereum:${token}@84532/transfer?address=${to}&uint256=12500000`);
    assert.equal(transferRequest(token, 8453, to, 1n), `ethereum:${token}@8453/transfer?address=${to}&uint256=1`);
  });
});
