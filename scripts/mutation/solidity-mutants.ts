// The mutants of a Solidity source, over a named set of operators. SuMo (the npm Solidity mutator)
// parses with @solidity-parser/parser 0.15, which cannot read `transient` state variables
// (Splitter.sol), so this works on the text: comments and strings are masked first, and every
// operator matches only where code is, inside a contract body.

/** The operators: each a kind of fault a test should notice. */
export const SOLIDITY_OPERATORS = {
  "require-removal": "a require(...) statement removed",
  "revert-removal": "a revert statement replaced by an empty block (its guard no longer stops anything); in assembly, a revert(...) call removed",
  "comparison-swap": "< ↔ <=, > ↔ >=, == ↔ !=",
  "arithmetic-swap": "+ ↔ -, * ↔ /, % → *, += ↔ -=",
  "logic-swap": "&& ↔ ||",
  "negation-removal": "!x → x; in assembly iszero(x) → x",
  "yul-swap": "in assembly: lt ↔ gt, add ↔ sub, mul ↔ div",
  "constant-change": "an integer literal n → n + 1; true ↔ false",
} as const;
export type SolidityOperator = keyof typeof SOLIDITY_OPERATORS;

export interface SolidityMutant {
  /** Stable across runs while the source is unchanged: file, line, column, operator and replacement. */
  id: string;
  file: string;
  line: number;
  column: number;
  operator: SolidityOperator;
  original: string;
  replacement: string;
  /** The whole mutated source. */
  source: string;
}

/** The source with comments and string literals replaced by spaces, so no operator matches inside them. */
export function maskedSource(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const two = source.slice(i, i + 2);
    if (two === "//") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? source.length : end;
      out += " ".repeat(stop - i);
      i = stop;
    } else if (two === "/*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else if (source[i] === '"' || source[i] === "'") {
      const quote = source[i];
      let j = i + 1;
      while (j < source.length && source[j] !== quote) j += source[j] === "\\" ? 2 : 1;
      out += " ".repeat(j + 1 - i);
      i = j + 1;
    } else {
      out += source[i];
      i += 1;
    }
  }
  return out;
}

/** Brace depth at each offset: 1 inside a contract body, 2 and more inside its functions. */
function depths(masked: string): Uint16Array {
  const depth = new Uint16Array(masked.length + 1);
  let d = 0;
  for (let i = 0; i < masked.length; i++) {
    if (masked[i] === "{") d++;
    depth[i] = d;
    if (masked[i] === "}") d--;
  }
  return depth;
}

interface Site {
  at: number;
  original: string;
  replacement: string;
  operator: SolidityOperator;
}

const SWAPS: { operator: SolidityOperator; pattern: RegExp; to: Record<string, string>; minDepth: number }[] = [
  // A comparison: not part of =>, <<, >>, <<=, >>= or an assignment.
  {
    operator: "comparison-swap",
    pattern: /(?<![<>=!])(<=|>=|==|!=|<|>)(?![<>=])/g,
    to: { "<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==" },
    minDepth: 2,
  },
  {
    operator: "arithmetic-swap",
    pattern: /(?<![+\-*/%=<>!&|^])(\+=|-=|\+|-|\*|\/|%)(?![+\-*/=>])/g,
    to: { "+": "-", "-": "+", "*": "/", "/": "*", "%": "*", "+=": "-=", "-=": "+=" },
    minDepth: 2,
  },
  { operator: "logic-swap", pattern: /(&&|\|\|)/g, to: { "&&": "||", "||": "&&" }, minDepth: 2 },
  { operator: "constant-change", pattern: /\b(true|false)\b/g, to: { true: "false", false: "true" }, minDepth: 1 },
];

function sites(masked: string): Site[] {
  const depth = depths(masked);
  const found: Site[] = [];
  for (const swap of SWAPS) {
    for (const m of masked.matchAll(swap.pattern)) {
      const at = m.index!;
      if (depth[at]! < swap.minDepth) continue;
      // `**` (power) and a unary sign are not binary arithmetic: left alone.
      if (m[1] === "*" && (masked[at - 1] === "*" || masked[at + 1] === "*")) continue;
      const before = masked.slice(0, at).trimEnd().slice(-1);
      if ((m[1] === "-" || m[1] === "+") && /^$|[(,=?:<>!&|+\-*/%[^]/.test(before)) continue;
      found.push({ at, original: m[1]!, replacement: swap.to[m[1]!]!, operator: swap.operator });
    }
  }
  // An integer literal (not part of a name, a hex literal or a unit like 1e6).
  for (const m of masked.matchAll(/(?<![\w.])(\d[\d_]*)(?![\w.])/g)) {
    const at = m.index!;
    if (depth[at]! < 1) continue;
    const value = BigInt(m[1]!.replaceAll("_", ""));
    found.push({ at, original: m[1]!, replacement: String(value + 1n), operator: "constant-change" });
  }
  for (const m of masked.matchAll(/!(?!=)/g)) {
    if (depth[m.index!]! < 2) continue;
    found.push({ at: m.index!, original: "!", replacement: "", operator: "negation-removal" });
  }
  const inAssembly = assemblyRanges(masked);
  const solidity = found.filter((site) => site.operator === "constant-change" || !inAssembly(site.at));
  solidity.push(...statementRemovals(masked, depth).filter((site) => !inAssembly(site.at)));
  solidity.push(...yulSites(masked, inAssembly));
  return solidity.sort((a, b) => a.at - b.at || a.operator.localeCompare(b.operator));
}

/** A test of whether an offset is inside an `assembly { ... }` block (Yul: calls, not operators). */
function assemblyRanges(masked: string): (at: number) => boolean {
  const ranges: [number, number][] = [];
  for (const m of masked.matchAll(/\bassembly\b[^{]*\{/g)) {
    const open = m.index! + m[0].length - 1;
    ranges.push([open, matching(masked, open)]);
  }
  return (at) => ranges.some(([from, to]) => at > from && at < to);
}

/** The offset of the bracket closing the one at `open`. */
function matching(masked: string, open: number): number {
  let nesting = 0;
  for (let i = open; i < masked.length; i++) {
    if (masked[i] === "(" || masked[i] === "{") nesting++;
    else if (masked[i] === ")" || masked[i] === "}") {
      nesting--;
      if (nesting === 0) return i;
    }
  }
  return masked.length;
}

const YUL_SWAPS: Record<string, string> = { lt: "gt", gt: "lt", add: "sub", sub: "add", mul: "div", div: "mul" };

/** Assembly's own faults: a comparison or arithmetic call swapped, an iszero dropped, a revert call removed. */
function yulSites(masked: string, inAssembly: (at: number) => boolean): Site[] {
  const found: Site[] = [];
  for (const m of masked.matchAll(/\b(lt|gt|add|sub|mul|div|iszero|revert)\(/g)) {
    const at = m.index!;
    if (!inAssembly(at)) continue;
    const name = m[1]!;
    if (name === "revert") {
      const end = matching(masked, at + name.length);
      found.push({ at, original: masked.slice(at, end + 1), replacement: "", operator: "revert-removal" });
    } else if (name === "iszero") {
      const end = matching(masked, at + name.length);
      found.push({ at, original: masked.slice(at, end + 1), replacement: masked.slice(at + name.length + 1, end), operator: "negation-removal" });
    } else {
      found.push({ at, original: name, replacement: YUL_SWAPS[name]!, operator: "yul-swap" });
    }
  }
  return found;
}

/** `require(...);` removed, and `revert X(...);` replaced by `{}`: the check is gone, the code still compiles. */
function statementRemovals(masked: string, depth: Uint16Array): Site[] {
  const found: Site[] = [];
  for (const m of masked.matchAll(/\b(require|revert)\s*[(A-Za-z_]/g)) {
    const at = m.index!;
    if (depth[at]! < 2) continue;
    const end = statementEnd(masked, at);
    if (end === -1) continue;
    const original = masked.slice(at, end + 1);
    found.push(
      m[1] === "require" ? { at, original, replacement: "", operator: "require-removal" } : { at, original, replacement: "{}", operator: "revert-removal" },
    );
  }
  return found;
}

/** The offset of the `;` that ends the statement starting at `from`, across nested brackets. */
function statementEnd(masked: string, from: number): number {
  let nesting = 0;
  for (let i = from; i < masked.length; i++) {
    const c = masked[i];
    if (c === "(" || c === "[" || c === "{") nesting++;
    else if (c === ")" || c === "]" || c === "}") nesting--;
    else if (c === ";" && nesting === 0) return i;
  }
  return -1;
}

/** Every mutant of `source` (a file of `file`), in source order. */
export function solidityMutants(file: string, source: string): SolidityMutant[] {
  const masked = maskedSource(source);
  return sites(masked).map((site) => {
    const before = source.slice(0, site.at);
    const line = before.split("\n").length;
    const column = site.at - before.lastIndexOf("\n");
    const original = source.slice(site.at, site.at + site.original.length);
    return {
      id: `${file}:${line}:${column}:${site.operator}:${site.replacement}`,
      file,
      line,
      column,
      operator: site.operator,
      original,
      replacement: site.replacement,
      source: before + site.replacement + source.slice(site.at + site.original.length),
    };
  });
}
