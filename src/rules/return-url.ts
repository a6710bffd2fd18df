import { DomainError } from "../errors.js";
import { notifyUrlProblem, parseBoundedUrl } from "./notify-url.js";

/**
 * Why a `return_url` (where the checkout offers to send the buyer back after paying) is refused, or
 * null when it is acceptable. The notify_url rules (https, default port, a public DNS name, no user
 * name or password, at most 512 characters), except on the local chain, where a merchant's shop
 * under development is plain http on localhost or any port: there only the scheme (http or https),
 * the length and the absence of credentials are checked.
 */
export function returnUrlProblem(value: string, options: { localChain: boolean }): string | null {
  if (!options.localChain) return notifyUrlProblem(value);
  const url = parseBoundedUrl(value);
  if (typeof url === "string") return url;
  if (url.protocol !== "https:" && url.protocol !== "http:") return "not http or https";
  if (url.username !== "" || url.password !== "") return "carries a user name or password";
  return null;
}

/** INVALID_REQUEST naming the rule a return_url breaks (one rule for payments, links and subscriptions). */
export function checkReturnUrl(value: string, localChain: boolean): void {
  const problem = returnUrlProblem(value, { localChain });
  if (problem) throw new DomainError("INVALID_REQUEST", { detail: `return_url: ${problem}` });
}
