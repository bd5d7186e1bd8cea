// Sessions where the spec says so: GET /v1/strategy-finder/attempts counts a wallet's runs made with its
// signed-in owner session. The run itself (chain fees, the backtest job) is stubbed: what is under test
// is whom POST /v1/strategy-finder/backtest logs the run for.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "../../adapters/db/api-schema.js";
import { createChallenge, exchangeChallenge } from "../../usecases/sessions.js";
import { connectRedis, createTestDatabase, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "./support.js";

vi.mock("../../usecases/backtest-runs/requests.js", async (original) => ({
  ...(await original<typeof import("../../usecases/backtest-runs/requests.js")>()),
  liveState: async () => ({ gridStrategy: { feeBps: 30 } }),
  runKind: async () => ({ mode: "fixed", returnPct: 1.5, verdict: null }),
}));

const prefix = randomPrefix();
const owner = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const someoneElse = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const TOKEN = "0x4444444444444444444444444444444444444444";
let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
let t: ReturnType<typeof testApp>;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  t = testApp({ db, redis, rateLimit: { keyPrefix: `${prefix}:rl` } });
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  await database?.drop();
});

async function signIn(): Promise<string> {
  const c = await createChallenge(db, { owner: owner.address, now: t.clock.now(), origin: "http://agent.test" });
  return (
    await exchangeChallenge(db, {
      owner: owner.address,
      challengeId: c.challengeId,
      signature: await owner.signMessage({ message: c.message }),
      now: t.clock.now(),
    })
  ).token;
}

async function run(identity?: string, token?: string) {
  const res = await t.app.request("/v1/strategy-finder/backtest", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ token: TOKEN, strategy: "dip-ladder", period: "1d", ...(identity ? { identity: { kind: "wallet", value: identity } } : {}) }),
  });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
}

async function attempts(wallet: string): Promise<number> {
  const res = await t.app.request(`/v1/strategy-finder/attempts?kind=wallet&value=${wallet}`);
  expect(res.status).toBe(200);
  return (await json(res)).data.runs;
}

describe("strategy-finder attempts by owner session", () => {
  it("a body identity without a session is not counted; the run is logged without identity", async () => {
    await run(owner.address);
    expect(await attempts(owner.address)).toBe(0);
    const logged = await db.selectFrom("strategy_run").select(["identity_kind", "identity_value"]).execute();
    expect(logged).toEqual([{ identity_kind: null, identity_value: null }]);
  });

  it("a run with the owner's session counts for that owner, whatever the body names", async () => {
    const token = await signIn();
    await run(undefined, token);
    await run(someoneElse, token);
    expect(await attempts(owner.address)).toBe(2);
    expect(await attempts(someoneElse)).toBe(0);
  });

  it("an unknown or expired session counts for no one", async () => {
    const token = await signIn();
    await run(owner.address, "x".repeat(43));
    t.clock.advance(60 * 60_000 + 1);
    await run(owner.address, token);
    expect(await attempts(owner.address)).toBe(2);
    expect(await db.selectFrom("strategy_run").select("id").execute()).toHaveLength(5);
  });
});
