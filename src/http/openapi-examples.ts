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

export function sample(schema: Schema, components: Record<string, Schema>, key: string, depth = 0): unknown {
  if (depth > 12) return null;
  if (typeof schema.$ref === "string") return sample(components[schema.$ref.split("/").pop()!]!, components, key, depth + 1);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return sample(branches.find((b) => b.type !== "null") ?? branches[0]!, components, key, depth + 1);
  switch (schema.type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (!required.has(name) && !["notify_url", "intent", "period_index"].includes(name)) continue;
        out[name] = sample(property, components, name, depth + 1);
      }
      return out;
    }
    case "array":
      return [sample((schema.items ?? {}) as Schema, components, key, depth + 1)];
    case "boolean":
      return true;
    case "integer":
    case "number":
      if (key in INTEGERS) return INTEGERS[key];
      if (/_at$|^start$/.test(key)) return SAMPLE_TIME;
      return typeof schema.minimum === "number" && schema.minimum > 1 ? schema.minimum : 1;
    case "string":
      return sampleString(schema, key);
    default:
      return null;
  }
}

function sampleString(schema: Schema, key: string): string {
  const pattern = typeof schema.pattern === "string" ? schema.pattern : "";
  if (pattern.includes("{40}")) return key === "payer" ? "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" : "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
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
