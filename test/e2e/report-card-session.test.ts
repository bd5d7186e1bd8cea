// Report-card sign-in against a running server (a real port): challenge → personal_sign with a devnet
// test account through viem → session → private card, and each refusal with its exact 401. The
// signature is verified through the devnet (publicClient.verifyMessage); the server's clock is a test
// clock, so expiry is checked by moving it.
import { serve } from "@hono/node-server";
import type { Server } from "node:http";
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSiweMessage, parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { testAccount } from "../helpers/wallets.js";
import { CHAIN_ID } from "../../domain/chain.js";
import { SIGN_IN_STATEMENT } from "../../usecases/sessions.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createChainClient } from "../../adapters/chain/client.js";
import { connectRedis, createTestDatabase, deleteKeys, migratedDb, randomPrefix, testApp, type Clock, type TestDatabase } from "../api/support.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../helpers/openapi-validate.js";
import { freePort } from "../helpers/stack.js";

const stack = inject("stack");
const owner = testAccount(14);
const other = testAccount(15);
const prefix = randomPrefix();

let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
let server: Server;
let base: string;
let clock: Clock;
let validator: ResponseValidator;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  const t = testApp({ db, redis, client: createChainClient(stack.rpcUrl, { timeoutMs: 15_000 }), rateLimit: { keyPrefix: `${prefix}:rl` } });
  clock = t.clock;
  clock.set(new Date());
  validator = responseValidator(await fetchOpenApi(t.app));
  const port = await freePort();
  server = serve({ fetch: t.app.fetch, port, hostname: "127.0.0.1" }) as Server;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (redis) await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  await database?.drop();
});

type Answer = { status: number; body: any };

async function call(method: "GET" | "POST", path: string, init: { body?: unknown; token?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const res = await fetch(`${base}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const body = await res.json();
  expect(validator.errors(method.toLowerCase(), path.split("?")[0]!, res.status, body), `${method} ${path} ${res.status} against the OpenAPI document`).toEqual(
    [],
  );
  return { status: res.status, body };
}

const challenge = async (who = owner.address) => {
  const a = await call("POST", "/v1/agent/report-card/session/challenge", { body: { owner: who } });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return a.body.data as { challengeId: string; message: string; expiresAt: string };
};
const exchange = (body: Record<string, unknown>) => call("POST", "/v1/agent/report-card/session", { body });

async function signIn(signer = owner): Promise<string> {
  const c = await challenge(signer.address);
  const signature = await signer.signMessage({ message: c.message });
  const s = await exchange({ owner: signer.address, challengeId: c.challengeId, signature });
  expect(s.status, JSON.stringify(s.body)).toBe(200);
  return s.body.data.token;
}

describe("report-card session on a running server", () => {
  it("challenge → personal_sign → session → the private card", async () => {
    const c = await challenge();
    expect(c.message).toContain(owner.address);
    expect(c.message).toContain(c.challengeId);
    expect(new Date(c.expiresAt).getTime() - clock.now().getTime()).toBe(5 * 60_000);

    const signature = await owner.signMessage({ message: c.message });
    const s = await exchange({ owner: owner.address, challengeId: c.challengeId, signature });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    expect(s.body.data.owner).toBe(owner.address);
    expect(new Date(s.body.data.expiresAt).getTime() - clock.now().getTime()).toBe(60 * 60_000);
    const token: string = s.body.data.token;
    expect(Buffer.from(token, "base64url").length).toBeGreaterThanOrEqual(16);
    // Stored hashed: the token itself is nowhere in the database.
    const stored = await db.selectFrom("session").selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);

    const card = await call("GET", `/v1/agent/report-card/${owner.address}/private`, { token });
    expect(card.status, JSON.stringify(card.body)).toBe(200);
    expect(card.body.data).toMatchObject({ owner: owner.address, view: "private", hitRate: null, agents: [] });
  });

  it("the challenge is an EIP-4361 (SIWE) message: viem parses and validates it, a viem local account signs it and signs in, and viem's verifySiweMessage agrees", async () => {
    const c = await challenge();
    const siwe = parseSiweMessage(c.message);
    expect(siwe).toMatchObject({
      domain: "agent.test",
      address: owner.address,
      uri: "http://agent.test",
      version: "1",
      chainId: CHAIN_ID,
      nonce: c.challengeId,
      statement: SIGN_IN_STATEMENT,
    });
    expect(siwe.issuedAt?.toISOString()).toBe(clock.now().toISOString());
    expect(siwe.expirationTime?.toISOString()).toBe(c.expiresAt);
    // The message is exactly what viem makes of those fields.
    expect(createSiweMessage(siwe as Parameters<typeof createSiweMessage>[0])).toBe(c.message);
    expect(validateSiweMessage({ message: siwe, address: owner.address, domain: "agent.test", nonce: c.challengeId, time: clock.now() })).toBe(true);

    const signature = await owner.signMessage({ message: c.message });
    const chain = createChainClient(stack.rpcUrl, { timeoutMs: 15_000 });
    await expect(
      chain.verifySiweMessage({ message: c.message, signature, address: owner.address, domain: "agent.test", nonce: c.challengeId, time: clock.now() }),
    ).resolves.toBe(true);
    const s = await exchange({ owner: owner.address, challengeId: c.challengeId, signature });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    const card = await call("GET", `/v1/agent/report-card/${owner.address}/private`, { token: s.body.data.token });
    expect(card.status, JSON.stringify(card.body)).toBe(200);
  });

  it("without a token, or with a malformed one, the private card is 401 SESSION_REQUIRED; the public card needs none", async () => {
    expect((await call("GET", `/v1/agent/report-card/${owner.address}/private`)).body.code).toBe("SESSION_REQUIRED");
    const bad = await call("GET", `/v1/agent/report-card/${owner.address}/private`, { token: "not-a-token" });
    expect([bad.status, bad.body.code]).toEqual([401, "SESSION_REQUIRED"]);
    expect((await call("GET", `/v1/agent/report-card/${owner.address}`)).status).toBe(200);
  });

  it("a replayed challenge is 401 BAD_SIGNATURE", async () => {
    const c = await challenge();
    const signature = await owner.signMessage({ message: c.message });
    expect((await exchange({ owner: owner.address, challengeId: c.challengeId, signature })).status).toBe(200);
    const replay = await exchange({ owner: owner.address, challengeId: c.challengeId, signature });
    expect([replay.status, replay.body.code]).toEqual([401, "BAD_SIGNATURE"]);
  });

  it("an expired challenge (the clock moved past 5 minutes) is 401 CHALLENGE_EXPIRED; an unknown one too", async () => {
    const c = await challenge();
    const signature = await owner.signMessage({ message: c.message });
    clock.advance(5 * 60_000 + 1);
    const late = await exchange({ owner: owner.address, challengeId: c.challengeId, signature });
    expect([late.status, late.body.code]).toEqual([401, "CHALLENGE_EXPIRED"]);
    const unknown = await exchange({ owner: owner.address, challengeId: "no-such-challenge", signature });
    expect([unknown.status, unknown.body.code]).toEqual([401, "CHALLENGE_EXPIRED"]);
  });

  it("just inside 5 minutes the challenge still works", async () => {
    const c = await challenge();
    const signature = await owner.signMessage({ message: c.message });
    clock.advance(5 * 60_000 - 1000);
    expect((await exchange({ owner: owner.address, challengeId: c.challengeId, signature })).status).toBe(200);
  });

  it("a wrong signer is 401 BAD_SIGNATURE", async () => {
    const c = await challenge();
    const signature = await other.signMessage({ message: c.message });
    const wrong = await exchange({ owner: owner.address, challengeId: c.challengeId, signature });
    expect([wrong.status, wrong.body.code]).toEqual([401, "BAD_SIGNATURE"]);
  });

  it("an altered message is 401 BAD_SIGNATURE", async () => {
    const c = await challenge();
    const altered = c.message.replace("one hour", "one year");
    expect(altered).not.toBe(c.message);
    const signature = await owner.signMessage({ message: altered });
    const bad = await exchange({ owner: owner.address, challengeId: c.challengeId, signature });
    expect([bad.status, bad.body.code]).toEqual([401, "BAD_SIGNATURE"]);
  });

  it("a challenge of one owner exchanged for another is 401 BAD_SIGNATURE, even signed by that other owner", async () => {
    const c = await challenge(owner.address);
    const signature = await other.signMessage({ message: c.message });
    const bad = await exchange({ owner: other.address, challengeId: c.challengeId, signature });
    expect([bad.status, bad.body.code]).toEqual([401, "BAD_SIGNATURE"]);
  });

  it("an expired token is 401 SESSION_REQUIRED", async () => {
    const token = await signIn();
    const path = `/v1/agent/report-card/${owner.address}/private`;
    clock.advance(60 * 60_000 - 1000);
    expect((await call("GET", path, { token })).status).toBe(200);
    clock.advance(1000);
    const expired = await call("GET", path, { token });
    expect([expired.status, expired.body.code]).toEqual([401, "SESSION_REQUIRED"]);
  });

  it("another owner's token is 401 SESSION_REQUIRED", async () => {
    const token = await signIn(other);
    expect((await call("GET", `/v1/agent/report-card/${other.address}/private`, { token })).status).toBe(200);
    const foreign = await call("GET", `/v1/agent/report-card/${owner.address}/private`, { token });
    expect([foreign.status, foreign.body.code]).toEqual([401, "SESSION_REQUIRED"]);
  });

  it("the bodies are strict: another field is 400 INVALID_REQUEST", async () => {
    const a = await call("POST", "/v1/agent/report-card/session/challenge", { body: { owner: owner.address, agent: "x" } });
    expect([a.status, a.body.code]).toEqual([400, "INVALID_REQUEST"]);
    const b = await exchange({ owner: owner.address, challengeId: "x", signature: "0x00", extra: 1 });
    expect([b.status, b.body.code]).toEqual([400, "INVALID_REQUEST"]);
  });
});
