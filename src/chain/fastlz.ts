/**
 * The length of Solady's `LibZip.flzCompress(data)` (FastLZ level 1), which the OP stack's
 * GasPriceOracle (Fjord and later) prices a transaction's L1 data fee by: a port of that Solidity,
 * step for step, counting the bytes it would write instead of writing them. The chain runs the same
 * compression in the EVM for each `getL1Fee` call, about 2.4 ms of a node's time per renewal of a
 * batch; here it is a few microseconds. Checked against the chain's GasPriceOracle by property tests
 * (test/chain/l1-fee-local.test.ts).
 */
export function flzCompressedLength(data: Uint8Array): number {
  const length = data.length;
  const u24 = (at: number) => data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16);
  const hash = (value: number) => (Math.imul(2654435769, value) >>> 19) & 0x1fff;
  /** Positions (from the start) by the hash of the three bytes there; 0 where none yet, as Solady's zeroed table. */
  const table = new Uint32Array(8192);
  /** A run of `runs` literal bytes: one header byte per 32 and the bytes themselves. */
  const literals = (runs: number) => runs + Math.ceil(runs / 32);
  /** A match of `l` bytes (as `cmp` counts them): three bytes per 262 past 263, then three (l ≥ 7) or two. */
  const match = (l: number) => {
    let out = 0;
    for (; l >= 263; l -= 262) out += 3;
    return out + (l >= 7 ? 3 : 2);
  };
  let out = 0;
  let anchor = 0;
  const ipLimit = length - 13;
  for (let ip = 2; ip < ipLimit; ) {
    let r = 0;
    let d = 0;
    for (;;) {
      const s = u24(ip);
      const h = hash(s);
      r = table[h]!;
      table[h] = ip;
      d = ip - r;
      if (ip >= ipLimit) break;
      ip++;
      if (d <= 0x1fff && s === u24(r)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > anchor) out += literals(ip - anchor);
    // Solady's `cmp`: the bytes equal from r + 3 and ip + 3 up to ipLimit + 9, plus the first unequal one.
    let l = 0;
    for (let end = ipLimit + 9 - (ip + 3); l < end; l++) if (data[r + 3 + l] !== data[ip + 3 + l]) end = 0;
    out += match(l);
    ip += l;
    table[hash(u24(ip))] = ip;
    ip++;
    table[hash(u24(ip))] = ip;
    ip++;
    anchor = ip;
  }
  return out + literals(length - anchor);
}
