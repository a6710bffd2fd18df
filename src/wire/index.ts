/**
 * The wire contract: one zod schema per wire type, named like the type it infers. Route handlers are
 * typed by these schemas, the domains return the types they infer, the OpenAPI document (and through
 * it the client's types) is generated from them, and tests check every response and webhook body
 * against them.
 */
export * from "./primitives.js";
export * from "./service.js";
export * from "./payments.js";
export * from "./links.js";
export * from "./recurring.js";
export * from "./refunds.js";
export * from "./events.js";
export * from "./x402.js";
export * from "./x402-receivers.js";
export * from "./payments-list.js";
export * from "./link-subscribers.js";
export * from "./holds.js";
