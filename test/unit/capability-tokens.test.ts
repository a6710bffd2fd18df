import { assert } from "chai";
import { z } from "zod";
import { CapabilityTokens, TOKEN_KINDS } from "../../src/tokens/capability.js";

const scope = { environment: "test" as const, chainId: 84532, deployment: "0xabc:0xdef" };
const key = { id: "k1", secret: "s".repeat(32) };
const Data = z.strictObject({ n: z.number() });

describe("capability tokens", () => {
  const tokens = new CapabilityTokens(scope, [key]);

  it("has four segments: kind, key marker, base64url JSON payload binding environment and chain, signature", () => {
    const token = tokens.mint(TOKEN_KINDS.refund, { n: 1 });
    const [kind, keyId, payload, signature] = token.split(".");
    assert.equal(kind, "rt");
    assert.equal(keyId, "k1");
    assert.deepEqual(JSON.parse(Buffer.from(payload!, "base64url").toString()), { env: "test", chain_id: 84532, n: 1 });
    assert.equal(Buffer.from(signature!, "base64url").length, 32);
    assert.deepEqual(tokens.verify(TOKEN_KINDS.refund, token, Data), { n: 1 });
  });

  it("never accepts one kind where another is expected, even with a rewritten kind marker", () => {
    const kinds = Object.values(TOKEN_KINDS);
    for (const minted of kinds) {
      const token = tokens.mint(minted, { n: 1 });
      for (const expected of kinds) {
        const relabelled = [expected, ...token.split(".").slice(1)].join(".");
        const ok = tokens.verify(expected, relabelled, Data) !== null;
        assert.equal(ok, minted === expected, `${minted} as ${expected}`);
      }
    }
  });

  it("refuses other environments, chains, deployments and secrets, and a payload the schema rejects", () => {
    const token = tokens.mint(TOKEN_KINDS.intent, { n: 1 });
    assert.isNull(new CapabilityTokens({ ...scope, environment: "production" }, [key]).verify(TOKEN_KINDS.intent, token, Data));
    assert.isNull(new CapabilityTokens({ ...scope, chainId: 8453 }, [key]).verify(TOKEN_KINDS.intent, token, Data));
    assert.isNull(new CapabilityTokens({ ...scope, deployment: "0xabc:0x999" }, [key]).verify(TOKEN_KINDS.intent, token, Data));
    assert.isNull(new CapabilityTokens(scope, [{ id: "k1", secret: "t".repeat(32) }]).verify(TOKEN_KINDS.intent, token, Data));
    assert.isNull(tokens.verify(TOKEN_KINDS.intent, tokens.mint(TOKEN_KINDS.intent, { n: "1" }), Data));
    for (const junk of [undefined, 5, "", "a.b.c", "pi.k1..", "pi.k1.e30.e30", `pi.k9.${token.split(".")[2]}.${token.split(".")[3]}`, token + "A"]) {
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, junk, Data), String(junk));
    }
  });

  it("refuses weak keys and bad key ids at construction", () => {
    assert.throws(() => new CapabilityTokens(scope, []));
    assert.throws(() => new CapabilityTokens(scope, [{ id: "K1", secret: "s".repeat(32) }]));
    assert.throws(() => new CapabilityTokens(scope, [{ id: "k1", secret: "short" }]));
  });
  it("seals a secret at rest (AES-256-GCM): opens only with the same purpose and context, under a configured key; rotation keeps old rows open", () => {
    const sealed = tokens.seal("link-subscription-capability", "0xlink:0xsub", "sc.secret");
    assert.notInclude(sealed, "sc.secret");
    assert.match(sealed, /^k1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.notEqual(tokens.seal("link-subscription-capability", "0xlink:0xsub", "sc.secret"), sealed, "a fresh IV each time");
    assert.equal(tokens.open("link-subscription-capability", "0xlink:0xsub", sealed), "sc.secret");
    assert.isNull(tokens.open("link-subscription-capability", "0xlink:0xother", sealed), "moved to another row");
    assert.isNull(tokens.open("another-purpose", "0xlink:0xsub", sealed));
    const [id, iv, body, tag] = sealed.split(".");
    const flipped = Buffer.from(body!, "base64url");
    flipped[0]! ^= 1;
    assert.isNull(tokens.open("link-subscription-capability", "0xlink:0xsub", [id, iv, flipped.toString("base64url"), tag].join(".")), "tampered");
    assert.isNull(
      new CapabilityTokens({ ...scope, deployment: "0xabc:0x999" }, [key]).open("link-subscription-capability", "0xlink:0xsub", sealed),
      "another deployment",
    );
    assert.isNull(
      new CapabilityTokens(scope, [{ id: "k2", secret: "t".repeat(32) }]).open("link-subscription-capability", "0xlink:0xsub", sealed),
      "key not configured",
    );
    const rotated = new CapabilityTokens(scope, [{ id: "k2", secret: "t".repeat(32) }, key]);
    assert.equal(rotated.open("link-subscription-capability", "0xlink:0xsub", sealed), "sc.secret");
    assert.match(rotated.seal("p", "c", "x"), /^k2\./, "the first key seals");
    assert.isNull(tokens.open("p", "c", "garbage"));
  });
});
