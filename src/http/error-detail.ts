import type { z } from "zod";

/** A field name a client can be told back: a plain identifier (anything else could be a value). */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * `field: rule` for the first problem of a refused body: the path of the field (`(body)` for the
 * body itself) and the rule it broke, in zod's words or the schema's own message. Never the value
 * sent: zod's messages name types and rules, not inputs; an unknown key is named only when it is a
 * plain identifier.
 */
export function issueDetail(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "(body): not accepted";
  const path = issue.path.map(String).filter((part) => FIELD_NAME.test(part) || /^[0-9]+$/.test(part));
  const where = path.length === issue.path.length && path.length > 0 ? path.join(".") : "(body)";
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0];
    return key !== undefined && FIELD_NAME.test(key) ? `${where === "(body)" ? "" : `${where}.`}${key}: unknown field` : `${where}: unknown field`;
  }
  if (issue.code === "invalid_type" && issue.input === undefined) return `${where}: required`;
  return `${where}: ${issue.message}`;
}

/**
 * The `svc-error-detail` header's value: printable ASCII only, one line, at most 200 characters, so
 * nothing a client sent can split or smuggle a header.
 */
export function headerSafe(detail: string): string {
  return detail.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
}
