/**
 * The client's commands' flags (`stablecoin-events`, `stablecoin-renewals`) and the rule they share:
 * a capability token is never taken from the command line, which the process list and the shell
 * history keep; it comes from the environment or a file, and a refused one is never echoed.
 */
import type { ReplaceFileSystem } from "./replace-file.js";

/** What a flag takes: a value, a number, or nothing (a switch). */
export type FlagKind = "text" | "number" | "switch";

/** The flags found, by name; a flag not given is absent. */
export type Flags<S extends Record<string, FlagKind>> = {
  [K in keyof S]?: S[K] extends "switch" ? boolean : S[K] extends "number" ? number : string;
};

export interface FlagRules<S extends Record<string, FlagKind>> {
  /** The flags the command takes (`--base-url`, …). */
  flags: S;
  /** Flags that would carry a capability token (`--capability`, `--link`): refused, however written. */
  tokenFlags: readonly string[];
  /** Where a capability token belongs, said when one is refused ("set X or pass --y <path>"). */
  whereTokensGo: string;
  usage: string;
}

/** A capability token (`<kind>.<key>.<payload>.<signature>`), or one of its kinds' prefixes where a flag belongs. */
const CAPABILITY_SHAPE = /^[a-z]{2}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const CAPABILITY_PREFIX = /^(pi|lm|sc)\./;

/** `argv`'s flags by `rules`; throws (a message for the user, never the token) on anything else. */
export function parseFlags<S extends Record<string, FlagKind>>(argv: readonly string[], rules: FlagRules<S>): Flags<S> {
  const refused = () =>
    new Error(`a capability token is never taken from the command line (the process list and shell history keep it): ${rules.whereTokensGo}`);
  if (argv.some((a) => CAPABILITY_SHAPE.test(a) || rules.tokenFlags.some((f) => a === f || a.startsWith(`${f}=`)))) throw refused();
  const found: Record<string, string | number | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const kind = Object.hasOwn(rules.flags, flag) ? rules.flags[flag] : undefined;
    if (kind === undefined) {
      if (CAPABILITY_PREFIX.test(flag)) throw refused();
      throw new Error(`unknown argument ${flag}\n${rules.usage}`);
    }
    if (kind === "switch") {
      found[flag] = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag}: a value is missing`);
    found[flag] = kind === "number" ? Number(value) : value;
  }
  return found as Flags<S>;
}

/** The part of `node:fs/promises` the commands use. */
export interface FileSystem extends ReplaceFileSystem {
  readFile(path: string, encoding: "utf8"): Promise<string>;
}

/** Node's file system, loaded when a command runs: the package has no dependencies and runs in browsers too. */
export async function nodeFileSystem(): Promise<FileSystem> {
  const specifier: string = "node:fs/promises";
  return (await import(specifier)) as FileSystem;
}
