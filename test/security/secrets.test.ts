// The service's secrets (issue 9, item 6): sign-request ids (the sign link's only secret) and
// report-card session tokens carry at least 128 bits of entropy, session tokens are kept and compared
// only as their SHA-256 (so no comparison ever runs over the secret itself, and a leaked table
// leaks no token), and neither they nor the wallet's signature appear in the logs of a sign-in,
// of a private report-card read, or of a sign-request read.
//
// Entropy is measured, not read off the code: each bit position of many samples is counted, and the
// sum of the per-bit Shannon entropies must reach 128 (a timestamp, a counter or a short random
// part shows up as constant bits), with every sample distinct.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createSignRequest, newSignRequestId } from "../../adapters/db/sign-requests.js";
import { createChallenge, exchangeChallenge, hashToken, sessionOwner } from "../../usecases/sessions.js";
import { json, testApp, useApiFixture } from "../api/support.js";

/** Sum over bit positions of the Shannon entropy of that bit across `samples` (equal-length byte strings). */
export function bitEntropy(samples: Buffer[]): number {
  const bits = samples[0]!.length * 8;
  let total = 0;
  for (let bit = 0; bit < bits; bit++) {
    let ones = 0;
    for (const s of samples) ones += (s[bit >> 3]! >> (7 - (bit & 7))) & 1;
    const p = ones / samples.length;
    if (p > 0 && p < 1) total += -(p * Math.log2(p) + (1 - p) * Math.log2(1 - p));
  }
  return total;
}

const base64url = (s: string) => Buffer.from(s, "base64url");

describe("the entropy measure", () => {
  it("finds a timestamp-plus-counter id weak and random bytes strong (so it can fail)", () => {
    const weak = Array.from({ length: 1000 }, (_, i) => {
      const b = Buffer.alloc(24);
      b.writeBigUInt64BE(BigInt(Date.now()), 0);
      b.writeUInt32BE(i, 8);
      return b;
    });
    expect(bitEntropy(weak)).toBeLessThan(40);
    const strong = Array.from({ length: 1000 }, () => base64url(newSignRequestId()));
    expect(bitEntropy(strong)).toBeGreaterThan(180);
  });
});

describe("sign-request ids", () => {
  it("carry at least 128 bits of entropy (measured over 2,000 ids), all distinct, URL-safe", () => {
    const ids = Array.from({ length: 2000 }, () => newSignRequestId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = ids.map(base64url);
    expect(new Set(bytes.map((b) => b.length)).size).toBe(1);
    expect(bitEntropy(bytes)).toBeGreaterThanOrEqual(128);
  });
});

const api = useApiFixture();

async function signIn(now: Date) {
  const account = privateKeyToAccount(generatePrivateKey());
  const challenge = await createChallenge(api.db, { owner: account.address, now, origin: "http://agent.test" });
  const signature = await account.signMessage({ message: challenge.message });
  return exchangeChallenge(api.db, { owner: account.address, challengeId: challenge.challengeId, signature, now });
}

describe("session tokens", () => {
  it("carry at least 128 bits of entropy (measured over 160 real sign-ins), all distinct", async () => {
    const now = new Date();
    const tokens: string[] = [];
    for (let i = 0; i < 160; i++) tokens.push((await signIn(now)).token);
    expect(new Set(tokens).size).toBe(tokens.length);
    const bytes = tokens.map(base64url);
    expect(new Set(bytes.map((b) => b.length)).size).toBe(1);
    // 160 samples estimate each bit within a few hundredths of a bit: 256 random bits measure ~245.
    expect(bitEntropy(bytes)).toBeGreaterThanOrEqual(128);
  }, 60_000);

  it("are stored only as their SHA-256 and looked up by it: the secret itself is never compared", async () => {
    const now = new Date();
    const session = await signIn(now);
    const rows = await api.db.selectFrom("session").selectAll().execute();
    const text = JSON.stringify(rows);
    expect(text).not.toContain(session.token);
    expect(rows.some((r) => (r as { token_hash?: string }).token_hash === hashToken(session.token))).toBe(true);
    expect(await sessionOwner(api.db, session.token, now)).toBe(session.owner);
    // One character off, or the stored hash presented as a token: nothing.
    const last = session.token.at(-1) === "A" ? "B" : "A";
    expect(await sessionOwner(api.db, session.token.slice(0, -1) + last, now)).toBeNull();
    expect(await sessionOwner(api.db, hashToken(session.token), now)).toBeNull();
  });
});

describe("no secret or signature in the logs", () => {
  it("a sign-in, a private report-card read and sign-request reads log none of the token, signature, challenge or id", async () => {
    const t = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl` } });
    const account = privateKeyToAccount(generatePrivateKey());
    const post = (path: string, body: unknown) =>
      t.app.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

    const challengeRes = await post("/v1/agent/report-card/session/challenge", { owner: account.address });
    expect(challengeRes.status).toBe(200);
    const challenge = (await json(challengeRes)).data as { challengeId: string; message: string };
    const signature = await account.signMessage({ message: challenge.message });
    const sessionRes = await post("/v1/agent/report-card/session", { owner: account.address, challengeId: challenge.challengeId, signature });
    expect(sessionRes.status).toBe(200);
    const { token } = (await json(sessionRes)).data as { token: string };

    // A refused exchange (a replay) logs its signature no more than a good one.
    expect((await post("/v1/agent/report-card/session", { owner: account.address, challengeId: challenge.challengeId, signature })).status).toBe(401);
    const privateRes = await t.app.request(`/v1/agent/report-card/${account.address}/private`, { headers: { authorization: `Bearer ${token}` } });
    expect(privateRes.status).toBe(200);
    expect((await t.app.request(`/v1/agent/report-card/${account.address}/private`, { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);

    const stored = await createSignRequest(api.db, {
      owner: account.address,
      kind: "vault-deposit",
      bundle: { kind: "vault-deposit", steps: [] },
      now: t.clock.now(),
    });
    expect((await t.app.request(`/v1/agent/sign-requests/${stored.id}`)).status).toBe(200);
    await t.app.request(`/sign/${stored.id}`);
    await t.app.request(`/v1/agent/sign-requests/${stored.id}?again=${stored.id}`);

    const text = t.log.text();
    expect(t.log.lines.length).toBeGreaterThanOrEqual(7); // the requests were logged, just not their secrets
    for (const secret of [token, signature, signature.slice(2, 66), challenge.challengeId, stored.id]) expect(text).not.toContain(secret);
  });
});
