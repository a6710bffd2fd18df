import { getAddress, type Address } from "viem";
import { loadLiveDeployment } from "../deployments.js";
import { TOKEN_KINDS } from "../tokens/capability.js";

/**
 * Examples for the OpenAPI document, made from the schemas with field-name hints, so they stay true
 * when a schema changes (the OpenAPI test validates every example against its schema).
 */

export type Schema = Record<string, unknown>;

const SAMPLE_TIME = 1795349274;
const TOKEN_FIELDS: Record<string, string> = {
  intent: TOKEN_KINDS.intent,
  link: TOKEN_KINDS.link,
  manage_token: TOKEN_KINDS.linkManage,
  setup_token: TOKEN_KINDS.setup,
  subscription: TOKEN_KINDS.subscription,
  cancel_token: TOKEN_KINDS.cancel,
  refund_token: TOKEN_KINDS.refund,
  approve_token: TOKEN_KINDS.approve,
  hold: TOKEN_KINDS.hold,
  checkout_token: TOKEN_KINDS.holdCheckout,
};
const INTEGERS: Record<string, number> = {
  period: 2_592_000,
  chain_id: 84532,
  end: 0,
  period_index: 0,
  fee_bps: 100,
  decimals: 6,
  confirmations: 2,
  paid_count: 1,
  min_period: 3600,
  lastPeriod: 0,
  retry_after: 5,
};

/**
 * The examples' addresses, one per role, so an example reads true: the Base Sepolia deployment's
 * contracts and token (deployments/84532.json), Hardhat's accounts #3 (the merchant) and #2 (the
 * payer), and addresses that stand for what is derived per payment or per merchant.
 */
const DEPLOYMENT = loadLiveDeployment(84532);
export const EXAMPLE_ADDRESSES = {
  merchant: getAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906"),
  payer: getAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"),
  splitter: DEPLOYMENT.contracts.Splitter.address,
  recurringCharges: DEPLOYMENT.contracts.RecurringCharges.address,
  x402Receivers: DEPLOYMENT.contracts.X402Receivers.address,
  token: DEPLOYMENT.token.address,
  /** A payment's own address (CREATE2 of the Splitter, per payment). */
  paymentAddress: getAddress("0x5c1b9d1a8e6f4b2e7d3a0c9f8e7d6c5b4a392817"),
  /** A merchant's x402 receiver (CREATE2 of X402Receivers, per recipient). */
  receiver: getAddress("0x7a4e2c19b8d3f6e0a5c7b9d1e3f5a7c9e1b3d5f7"),
} satisfies Record<string, Address>;

/** The address an example gives a field, by its name and where it sits (`path`: enclosing schemas and fields). */
function exampleAddress(key: string, path: readonly string[]): Address {
  const a = EXAMPLE_ADDRESSES;
  switch (key) {
    case "payer":
      return a.payer;
    case "splitter":
      return a.splitter;
    case "recurring_charges":
    case "contract":
    case "spender":
      return a.recurringCharges;
    case "x402_receivers":
      return a.x402Receivers;
    case "token":
    case "address": // capabilities' token.address
      return a.token;
    case "deposit_address":
    case "DepositAddress":
      return a.paymentAddress;
    case "pay_to":
      return a.receiver;
    case "verifyingContract":
      return path.includes("token_domain") ? a.token : a.recurringCharges;
    case "to": // the calldata's target: the token for an allowance revoke, else the recurring contract
      return path.includes("AllowanceRevokePrepareResponse") ? a.token : a.recurringCharges;
    default:
      return a.merchant; // recipient, merchant
  }
}

export function sample(schema: Schema, components: Record<string, Schema>, key: string, depth = 0, path: readonly string[] = []): unknown {
  if (depth > 12) return null;
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()!;
    return sample(components[name]!, components, key, depth + 1, [...path, name]);
  }
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return sample(branches.find((b) => b.type !== "null") ?? branches[0]!, components, key, depth + 1, path);
  switch (schema.type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (!required.has(name) && !["notify_url", "intent", "period_index"].includes(name)) continue;
        out[name] = sample(property, components, name, depth + 1, [...path, name]);
      }
      return out;
    }
    case "array":
      return [sample((schema.items ?? {}) as Schema, components, key, depth + 1, path)];
    case "boolean":
      return true;
    case "integer":
    case "number":
      if (key in INTEGERS) return INTEGERS[key];
      if (/_at$|^start$/.test(key)) return SAMPLE_TIME;
      return typeof schema.minimum === "number" && schema.minimum > 1 ? schema.minimum : 1;
    case "string":
      return sampleString(schema, key, path);
    default:
      return null;
  }
}

function sampleString(schema: Schema, key: string, path: readonly string[]): string {
  const pattern = typeof schema.pattern === "string" ? schema.pattern : "";
  if (pattern.includes("{40}")) return exampleAddress(key, path);
  if (pattern.includes("{64}")) return `0x${(key === "reference" ? "5d1ce0f2" : key.includes("hash") ? "b413b500" : "7a2e91c4").repeat(8)}`;
  if (pattern.startsWith("^evt_")) return `evt_${"4f0e3556".repeat(4)}`;
  if (pattern.startsWith("^v1a,")) return `v1a,${"q83vEjRWeJA".repeat(8)}==`;
  if (pattern.includes("{32}")) return key === "id" ? `evt_${"4f0e3556".repeat(4)}` : `0x${"7e1b4c2a".repeat(4)}`;
  if (/\{2\}\)\{[01],/.test(pattern)) return `0x${"ab".repeat(65)}`; // hex bytes (a signature)
  if (pattern.startsWith("^0x[0-9a-f]*")) return "0x095ea7b3";
  if (pattern.includes("\\.[0-9]{6}")) return "12.500000";
  if (pattern.includes("[0-9]{1,6}")) return "12.50";
  if (pattern === "^(0|[1-9][0-9]*)$" || key === "amount" || key === "refund_amount") return "12500000";
  if (pattern === "^[0-9]+$") return "32";
  if (key in TOKEN_FIELDS) return `${TOKEN_FIELDS[key]}.local.eyJlbnYiOiJ0ZXN0In0.aPVYf6bKipkHqDKfhmD_1FwyJ1RgV7WBWtu7IxRklO0`;
  if (key === "notify_url") return "https://shop.example.com/hooks";
  if (key === "return_url") return "https://shop.example.com/subscribed";
  if (key.endsWith("url")) return "http://127.0.0.1:8787/checkout/";
  if (key === "symbol") return "USDC";
  return key === "description" ? "Revoke the subscription" : "string";
}
