// Sign-in hardening: a bounded signature, a challenge spent only by a definite answer (an RPC outage is
// 503 UNAVAILABLE and leaves it usable), and a per-client limit on creating challenges and sessions.
// The "chain" is a PublicClient on a closed port (an outage) or a custom transport that answers the
// universal validator's eth_call like a node would for a smart wallet (valid or not).
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { createPublicClient, custom, getAddress, http, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_LIMIT } from "../../contract/session.js";
import { SIGNATURE_MAX_BYTES } from "../../contract/session.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { freePort } from "../helpers/stack.js";
import { connectRedis, createTestDatabase, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "./support.js";

const prefix = randomPrefix();
const key = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
/** A smart wallet: no key signs for it, its contract (here, the fake node) says whether a signature is good. */
const smartWallet = getAddress("0x00000000000000000000000000000000000c0de1");
const smartSignature = `0x${"ab".repeat(200)}`;

let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
let dead: PublicClient;
let calls = 0;

/** A node that answers the validator's deployless eth_call with `valid`. */
const node = (valid: boolean): PublicClient =>
  createPublicClient({
    transport: custom({
      async request({ method }: { method: string }) {
        calls += 1;
        if (method === "eth_call") return valid ? "0x01" : "0x00";
        if (method === "eth_chainId") return "0x1237";
        throw new Error(`unexpected ${method}`);
      },
    }),
  });

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  // Nothing listens on a port just freed: every request is refused at once.
  dead = createPublicClient({ transport: http(`http://127.0.0.1:${await freePort()}`, { retryCount: 0, timeout: 3000 }) });
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  await database?.drop();
});

let n = 0;
const app = (client?: PublicClient) => testApp({ db, redis, client, rateLimit: { keyPrefix: `${prefix}:rl${n++}` } });
type App = ReturnType<typeof app>["app"];
const post = (a: App, path: string, body: unknown, ip = "203.0.113.1") =>
  a.request(`/v1/agent/report-card${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": ip },
    body: JSON.stringify(body),
  });
const challenge = async (a: App, owner: string) => {
  const res = await post(a, "/session/challenge", { owner });
  expect(res.status).toBe(200);
  return (await json(res)).data as { challengeId: string; message: string };
};
const usedAt = async (id: string) => (await db.selectFrom("session_challenge").select("used_at").where("id", "=", id).executeTakeFirstOrThrow()).used_at;

describe("sign-in hardening", () => {
  it("the challenge is an EIP-4361 message; a stored message that is not one for this owner and nonce is 401 BAD_SIGNATURE, whoever signed it", async () => {
    const a = app().app;
    const c = await challenge(a, key.address);
    expect(c.message).toMatch(/^agent\.test wants you to sign in with your Ethereum account:\n0x[0-9a-fA-F]{40}\n/);
    expect(c.message).toContain(`\nNonce: ${c.challengeId}\n`);
    expect(c.challengeId).toMatch(/^[0-9a-f]{32}$/);
    // The same words without the EIP-4361 shape (e.g. a challenge stored before the change): signed by the owner, still refused.
    const plain = c.message.replace(" wants you to sign in with your Ethereum account:", " asks you to sign in:");
    await db.updateTable("session_challenge").set({ message: plain }).where("id", "=", c.challengeId).execute();
    const res = await post(a, "/session", { owner: key.address, challengeId: c.challengeId, signature: await key.signMessage({ message: plain }) });
    expect([res.status, (await json(res)).code]).toEqual([401, "BAD_SIGNATURE"]);
  });

  it("a signature over 4096 bytes, or not whole hex bytes, is 400 INVALID_REQUEST; 4096 bytes is heard out", async () => {
    const a = app().app;
    const c = await challenge(a, key.address);
    for (const signature of [`0x${"ab".repeat(SIGNATURE_MAX_BYTES + 1)}`, "0xabc", "0x", "abab"]) {
      const res = await post(a, "/session", { owner: key.address, challengeId: c.challengeId, signature });
      const body = await json(res);
      expect([res.status, body.code, body.details?.field], signature.slice(0, 12)).toEqual([400, "INVALID_REQUEST", "signature"]);
    }
    expect(await usedAt(c.challengeId)).toBeNull();
    // At the bound: a definite (bad) answer, which spends the challenge.
    const res = await post(a, "/session", { owner: key.address, challengeId: c.challengeId, signature: `0x${"ab".repeat(SIGNATURE_MAX_BYTES)}` });
    expect([res.status, (await json(res)).code]).toEqual([401, "BAD_SIGNATURE"]);
    expect(await usedAt(c.challengeId)).not.toBeNull();
  });

  it("an RPC outage is 503 UNAVAILABLE and leaves the challenge usable; the same request then signs in", async () => {
    const down = app(dead).app;
    const c = await challenge(down, smartWallet);
    const body = { owner: smartWallet, challengeId: c.challengeId, signature: smartSignature };
    const during = await post(down, "/session", body);
    expect([during.status, (await json(during)).code]).toEqual([503, "UNAVAILABLE"]);
    expect(await usedAt(c.challengeId)).toBeNull();

    const up = app(node(true)).app;
    const after = await post(up, "/session", body);
    const session = await json(after);
    expect(after.status, JSON.stringify(session)).toBe(200);
    expect(session.data.owner).toBe(smartWallet);
    expect(await usedAt(c.challengeId)).not.toBeNull();
    // Spent by that answer: a replay is refused.
    const replay = await post(up, "/session", body);
    expect([replay.status, (await json(replay)).code]).toEqual([401, "BAD_SIGNATURE"]);
  });

  it("a definite no from the chain spends the challenge: a good signature after it is refused", async () => {
    const no = app(node(false)).app;
    const c = await challenge(no, smartWallet);
    const body = { owner: smartWallet, challengeId: c.challengeId, signature: smartSignature };
    const bad = await post(no, "/session", body);
    expect([bad.status, (await json(bad)).code]).toEqual([401, "BAD_SIGNATURE"]);
    const yes = await post(app(node(true)).app, "/session", body);
    expect([yes.status, (await json(yes)).code]).toEqual([401, "BAD_SIGNATURE"]);
  });

  it("a key's signature needs no chain: it signs in while the RPC is down, without asking it", async () => {
    const down = app(dead).app;
    const c = await challenge(down, key.address);
    const res = await post(down, "/session", { owner: key.address, challengeId: c.challengeId, signature: await key.signMessage({ message: c.message }) });
    expect(res.status).toBe(200);
    const before = calls;
    const viaNode = app(node(false)).app;
    const c2 = await challenge(viaNode, key.address);
    const res2 = await post(viaNode, "/session", {
      owner: key.address,
      challengeId: c2.challengeId,
      signature: await key.signMessage({ message: c2.message }),
    });
    expect(res2.status).toBe(200);
    expect(calls).toBe(before);
  });

  it(`challenges and sessions are limited per client: ${SIGN_IN_LIMIT.points} per ${SIGN_IN_LIMIT.duration / 60} minutes, whichever owner is named`, async () => {
    const a = app().app;
    for (let i = 0; i < SIGN_IN_LIMIT.points; i++) {
      const owner = `0x${(i + 1).toString(16).padStart(40, "0")}`;
      expect((await post(a, "/session/challenge", { owner }, "203.0.113.50")).status).toBe(200);
    }
    const over = await post(a, "/session/challenge", { owner: key.address }, "203.0.113.50");
    expect([over.status, (await json(over)).code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another client is not affected.
    expect((await post(a, "/session/challenge", { owner: key.address }, "203.0.113.51")).status).toBe(200);

    const exchange = { owner: key.address, challengeId: "no-such-challenge", signature: "0x00" };
    for (let i = 0; i < SIGN_IN_LIMIT.points; i++) expect((await post(a, "/session", exchange, "203.0.113.60")).status).toBe(401);
    const limited = await post(a, "/session", exchange, "203.0.113.60");
    expect([limited.status, (await json(limited)).code]).toEqual([429, "RATE_LIMITED"]);
  });
});
