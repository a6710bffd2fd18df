import { assert } from "chai";
import { createHmac, hkdfSync } from "node:crypto";
import { z } from "zod";
import { CapabilityTokens, MAX_TOKEN_LENGTH, TOKEN_KINDS } from "../../src/tokens/capability.js";

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

  it("refuses weak keys and bad key ids at construction, saying which", () => {
    assert.throws(() => new CapabilityTokens(scope, []), "at least one token key is required");
    for (const id of ["K1", "", "k1-", "-k1", "k1.", "a".repeat(17)]) {
      assert.throws(() => new CapabilityTokens(scope, [{ id, secret: "s".repeat(32) }]), `token key id "${id}" must be 1–16 of a–z, 0–9`);
    }
    assert.doesNotThrow(() => new CapabilityTokens(scope, [{ id: "a".repeat(16), secret: "s".repeat(32) }]));
    assert.throws(() => new CapabilityTokens(scope, [{ id: "k1", secret: "s".repeat(31) }]), 'token key "k1" is shorter than 32 characters');
    assert.doesNotThrow(() => new CapabilityTokens(scope, [{ id: "k1", secret: "s".repeat(32) }]));
  });

  it("verifies tokens minted before an upgrade: the format and its key derivation are pinned (a deployment named in any case)", () => {
    // Minted once by this code; tokens in merchants' hands must keep verifying after a release.
    const minted = "rt.k1.eyJlbnYiOiJ0ZXN0IiwiY2hhaW5faWQiOjg0NTMyLCJuIjoxfQ.ziGs0_MGka1zebHB-RZhtXdgzq5MRXpsaHQsa4aY-4c";
    const sealed = "k1.lKdSchJZReaYLX9t.6Q.1SSmpDE19zNgs-b32JmMvg";
    for (const deployment of ["0xAbC:0xdef", "0xabc:0xdef", "0XABC:0XDEF"]) {
      const same = new CapabilityTokens({ ...scope, deployment }, [key]);
      assert.deepEqual(same.verify(TOKEN_KINDS.refund, minted, Data), { n: 1 }, deployment);
      assert.equal(same.mint(TOKEN_KINDS.refund, { n: 1 }), minted, deployment);
      assert.equal(same.open("p", "c", sealed), "x", deployment);
    }
  });

  it("names a token's kind from its first segment, before any check; no dot, no kind", () => {
    assert.equal(CapabilityTokens.kindOf("pi.k1.x.y"), "pi");
    assert.equal(CapabilityTokens.kindOf("ho."), "ho");
    assert.equal(CapabilityTokens.kindOf(".x"), "");
    assert.isNull(CapabilityTokens.kindOf("pi"));
    assert.isNull(CapabilityTokens.kindOf(""));
  });

  describe("a token signed with the right key but not of the right shape", () => {
    // A holder of the secret (or a bug of ours) signing what mint never writes: the shape is checked, not only the signature.
    const signed = (kind: string, payload: string, encoding: "base64url" | "base64" = "base64url") => {
      const info = `${scope.environment}|${scope.chainId}|${scope.deployment.toLowerCase()}|${kind}`;
      const derived = Buffer.from(hkdfSync("sha256", key.secret, "svc-capability-token-v1", info, 32));
      const head = `${kind}.${key.id}.${payload}`;
      return `${head}.${createHmac("sha256", derived).update(head).digest(encoding)}`;
    };
    const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

    it("verifies as minted (the forger's derivation is the service's)", () => {
      assert.deepEqual(tokens.verify(TOKEN_KINDS.intent, signed("pi", json({ env: "test", chain_id: 84532, n: 1 })), Data), { n: 1 });
    });

    it("refuses a payload or signature outside base64url, wherever the stray character is", () => {
      const payload = json({ env: "test", chain_id: 84532, n: 1 });
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", payload, "base64"), Data), "padded standard base64 signature");
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", ` ${payload}`), Data), "a leading space in the payload");
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", `${payload}=`), Data), "a trailing = in the payload");
      const [head, signature] = [signed("pi", payload).split(".").slice(0, 3).join("."), signed("pi", payload).split(".")[3]!];
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, `${head}. ${signature}`, Data), "a leading space in the signature");
    });

    it("refuses a payload that is JSON null, not an object, or binds another environment or chain", () => {
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", json(null)), Data));
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", Buffer.from("{not json").toString("base64url")), Data));
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", json({ env: "production", chain_id: 84532, n: 1 })), Data), "environment");
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", json({ env: "test", chain_id: 8453, n: 1 })), Data), "chain");
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", json({ env: "test", n: 1 })), Data), "no chain");
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, signed("pi", json({ chain_id: 84532, n: 1 })), Data), "no environment");
    });

    it("refuses a fifth segment", () => {
      assert.isNull(tokens.verify(TOKEN_KINDS.intent, `${signed("pi", json({ env: "test", chain_id: 84532, n: 1 }))}.x`, Data));
    });
  });

  it("refuses a token longer than the limit before any work, and takes one exactly at it", () => {
    const Padded = z.strictObject({ n: z.number(), pad: z.string() });
    // base64 grows by one or two characters a byte: two key ids of different lengths reach every length.
    const minters = [tokens, new CapabilityTokens(scope, [{ id: "k12", secret: key.secret }])];
    const ofLength = (length: number) => {
      for (let pad = 0; pad < length; pad++) {
        for (const minter of minters) {
          const token = minter.mint(TOKEN_KINDS.intent, { n: 1, pad: "x".repeat(pad) });
          if (token.length === length) return { minter, token };
        }
      }
      throw new Error(`no token of ${length} characters`);
    };
    const at = ofLength(MAX_TOKEN_LENGTH);
    assert.isNotNull(at.minter.verify(TOKEN_KINDS.intent, at.token, Padded));
    const over = ofLength(MAX_TOKEN_LENGTH + 1);
    assert.isNull(over.minter.verify(TOKEN_KINDS.intent, over.token, Padded));
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
    for (const broken of ["k1", "k1.", "k1..", "k1...", "k9.a.b.c", [id, iv, body].join("."), [id, iv, body, tag, "x"].join(".")]) {
      assert.isNull(tokens.open("link-subscription-capability", "0xlink:0xsub", broken), broken);
    }
  });
});
