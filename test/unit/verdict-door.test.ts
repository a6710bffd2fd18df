import { assert } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createPublicClient, http, pad } from "viem";
import { agreedFor, agreeOnClaim, agreeOnLogs, VERDICT_KINDS, type VerdictKind } from "../../src/chain/agreement.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The verdicts of DESIGN v7 ("One door for verdicts"), each a kind of the door's: a verdict the service forms that is not here, or is here and
 * skips the door, fails below.
 */
const DESIGN_VERDICTS: Record<string, VerdictKind> = {
  valid: "valid",
  recover: "recover",
  REFUNDED: "refunded",
  CHARGED: "charged",
  ALREADY_CHARGED: "already_charged",
  "a settled event": "settled_event",
  "an x402 success": "x402_success",
  "an x402 auth-capture success": "x402_auth_capture_success",
  "the refund target": "refund_target",
  "a watch's end": "watch_end",
  "the code hashes": "code_hash",
  "a hold's authorized": "hold_authorized",
  "a hold's captured": "hold_captured",
  "a hold's voided": "hold_voided",
  "a hold's refunded": "hold_refunded",
  "a hold's reclaimed": "hold_reclaimed",
  "an escrow's refusal": "escrow_refused",
};

/** Where each kind is formed: every file here asks the door for it (`agreeOn…("kind", …)`). */
const FORMED_IN: Record<VerdictKind, string[]> = {
  valid: ["src/payments/verify.ts", "src/x402/verdict.ts"],
  recover: ["src/payments/recover.ts"],
  refunded: ["src/refunds/refunds.ts"],
  charged: ["src/recurring/charge-follow.ts"],
  already_charged: ["src/recurring/charge-answers.ts"],
  settled_event: ["src/webhooks/watched-events.ts", "src/links/first-charges.ts"],
  x402_success: ["src/x402/facilitator.ts"],
  x402_auth_capture_success: ["src/x402/auth-capture.ts", "src/x402/auth-capture-lifecycle-send.ts"],
  refund_target: ["src/refunds/refunds.ts"],
  watch_end: ["src/payments/deposit-settler.ts", "src/payments/relayer-follow.ts", "src/holds/operator.ts"],
  code_hash: ["src/payments/deposit-address.ts", "src/chain/contracts/x402-receivers.ts"],
  hold_authorized: ["src/holds/operator.ts", "src/holds/hold-log.ts", "src/webhooks/hold-watcher.ts"],
  hold_captured: ["src/holds/operator.ts", "src/holds/hold-log.ts", "src/webhooks/hold-watcher.ts"],
  hold_voided: ["src/holds/operator.ts", "src/holds/hold-log.ts", "src/webhooks/hold-watcher.ts"],
  hold_refunded: ["src/holds/hold-log.ts", "src/holds/hold-refunds.ts"],
  hold_reclaimed: ["src/holds/hold-log.ts", "src/webhooks/hold-watcher.ts"],
  escrow_refused: ["src/holds/escrow-refusals.ts"],
};

/**
 * What forming a verdict looks like in code, and the kinds a file writing it may be formed for. A
 * file that writes one must be in {@link FORMED_IN} for one of them (so it asks the door), or be
 * named in {@link NOT_A_VERDICT} with the reason.
 */
const MARKERS: Array<[RegExp, VerdictKind[]]> = [
  [/\bvalid: true\b/, ["valid", "recover"]],
  [/\bsuccess: true\b|[{,]\s*success\s*[,}]/, ["x402_success", "x402_auth_capture_success"]],
  [/"REFUNDED"/, ["refunded", "hold_refunded"]],
  [/"CHARGED"|\.enum\.CHARGED\b/, ["charged"]],
  [/"ALREADY_CHARGED"|\.enum\.ALREADY_CHARGED\b/, ["already_charged", "charged"]],
  [/"payment\.settled"|"subscription\.charged"|"subscription\.revoked"/, ["settled_event"]],
  [/\bdepositorOf\(/, ["refund_target"]],
  [/\.markSettled\(|\bwatches\.settle\(|\.markDone\(/, ["watch_end"]],
  [/\bsubscribe\.activate\(/, ["settled_event"]],
  [/"hold\.(authorized|captured|voided|refunded|reclaimed)"/, ["hold_authorized", "hold_captured", "hold_voided", "hold_refunded", "hold_reclaimed"]],
  [/\.forwarderCodeHash\(|"(FORWARDER|RECEIVER)_CODE_HASH"/, ["code_hash"]],
];

/** Files that write a marker and form no verdict: why. */
const NOT_A_VERDICT: Record<string, string> = {
  "src/webhooks/watcher.ts": "writes the events watched-events.ts formed through the door to the queue, and ends a revoked subscription's watch on them",
  "src/payments/depositor.ts": "the search itself: its answer is a refund target only through the door (refunds.ts, agreeOnRead)",
  "src/payments/payments-list.ts": "the payments list shows who paid; a refund's target is found again by refunds.ts through the door",
  "src/chain/contracts/splitter.ts": "the raw read of FORWARDER_CODE_HASH, called only by deposit-address.ts through the door",
  "src/store/deposit-watches.ts": "the store's write; the settler decides it through the door",
  "src/x402/receiver-sender.ts": "ends a settlement's watch on followSent's step, whose receipt is Agreed: relayer-follow.ts asks the door",
  "src/holds/operator-follow.ts": "ends an operator call's watch on followSent's step, whose receipt is Agreed: relayer-follow.ts asks the door",
  "src/store/x402-receivers.ts": "the store's write; the receiver sender decides it through the door",
  "src/store/hold-transactions.ts": "the store's write; the operator's follow round decides it through the door",
  "src/chain/agreement.ts": "the door",
  "src/http/openapi.ts": "the API's description: its prose names `valid: true` for integrators, and forms nothing",
  "src/http/operations.ts": "the operations' descriptions: prose naming `valid: true`, forming nothing",
};

/** Service source, less the wire schemas and the HTTP layer (they type and map verdicts, and document them in prose; domain code forms them). */
function sources(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts")) files.set(relative(root, path), readFileSync(path, "utf8"));
    }
  };
  walk(join(root, "src"));
  // The HTTP layer is read too (a handler must not form a verdict either); wire schemas and generated code only type them.
  for (const path of [...files.keys()]) if (/^src\/(wire|generated)\//.test(path)) files.delete(path);
  return files;
}

/** The code without its comments (a comment naming `valid: true` forms nothing). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
}

/** A call of the door: the four agreements, and the relayer's agreed simulation (its majority's revert a verdict). */
const DOOR_CALL = /\b(?:agreeOn(?:Receipt|Claim|Logs|Read)|agreedSimulation)(?:<[^>(]*>)?\(\s*"([a-z0-9_]+)"/g;

describe("one door for every verdict (DESIGN v7)", () => {
  const files = sources();

  it("the door's kinds are the design's verdicts, each once", () => {
    assert.sameMembers([...VERDICT_KINDS], Object.values(DESIGN_VERDICTS));
    assert.lengthOf(new Set(VERDICT_KINDS), VERDICT_KINDS.length);
    assert.sameMembers(Object.keys(FORMED_IN), [...VERDICT_KINDS]);
  });

  it("every kind is asked of the door in each file that forms it, and every door call is registered", () => {
    for (const [kind, paths] of Object.entries(FORMED_IN)) {
      for (const path of paths) {
        const asked = [...code(files.get(path) ?? "").matchAll(DOOR_CALL)].map((m) => m[1]);
        assert.include(asked, kind, `${path} forms ${kind}: it must ask the door for it`);
      }
    }
    for (const [path, text] of files) {
      for (const [, kind] of code(text).matchAll(DOOR_CALL)) {
        assert.include(VERDICT_KINDS as readonly string[], kind, `${path}: unknown kind ${kind}`);
        assert.include(FORMED_IN[kind as VerdictKind], path, `${path} asks the door for ${kind}: register it in FORMED_IN`);
      }
    }
  });

  it("no file forms a verdict without the door: each that writes one is registered for its kind", () => {
    const offenders: string[] = [];
    for (const [path, text] of files) {
      if (path in NOT_A_VERDICT) continue;
      for (const [marker, kinds] of MARKERS) {
        if (!marker.test(code(text))) continue;
        if (!kinds.some((k) => FORMED_IN[k].includes(path))) offenders.push(`${path} writes ${marker} (a ${kinds.join(" or ")} verdict) and is not registered`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it("only the door forms an Agreed value", () => {
    for (const [path, text] of files) {
      if (path === "src/chain/agreement.ts") continue;
      assert.notMatch(code(text), /\bas\s+(unknown\s+as\s+)?Agreed\b/, `${path} casts to Agreed`);
      assert.notMatch(code(text), /FROM_THE_DOOR/, path);
    }
  });

  it("where a log is the proof, no log is no claim, even on one node's word", async () => {
    // A client of one node (no quorum): the door forms its value without asking, except for no log at all.
    const client = createPublicClient({ transport: http("http://127.0.0.1:9") });
    const finality = { kind: "confirmations" as const, confirmations: 0 };
    assert.isNull(await agreeOnLogs("already_charged", client, finality, []));
    assert.isNull(await agreeOnClaim("recover", client, finality, { blockNumber: 1n, logs: [] }));
    const held = await agreeOnClaim("watch_end", client, finality, { blockNumber: 1n, calls: [{ to: pad("0x1", { size: 20 }), data: "0x", result: "0x" }] });
    assert.equal(agreedFor(held), "watch_end");
  });
});
