// The index gate (issue 21, items 1 and 2) against a real Postgres: reads answer 503 UNAVAILABLE with
// Retry-After until the views exist and the index said it is ready, a view that goes missing answers
// 503 (never 500) and closes the gate, a stale devnet index is not served, and a scan of another
// chain answers SCAN_PREPARING with a true Retry-After. The whole stack is test/e2e/fresh-start.test.ts.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCAN_RETRY_SECONDS, storeScan } from "../../usecases/backtest-runs/scans.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { IndexReadiness } from "../../adapters/db/index-readiness.js";
import { createProjectionsDb, createProjectionsPostgres } from "../../adapters/db/projections.js";
import { connectRedis, createTestDatabase, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "./support.js";

const VIEWS = "agent_views";
const CHAIN_A = `0x${"aa".repeat(32)}`;
const CHAIN_B = `0x${"bb".repeat(32)}`;

let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
let admin: postgres.Sql;
let index: IndexReadiness;
let genesis = CHAIN_A;
const prefix = randomPrefix();
let t: ReturnType<typeof testApp>;

/** What Ponder leaves in the views schema: here only its meta view (over a table of our own). */
async function makeViews(isReady: 0 | 1) {
  await admin.unsafe(`create schema if not exists ponder_t; create table if not exists ponder_t._ponder_meta (key text primary key, value jsonb)`);
  await admin.unsafe(`insert into ponder_t._ponder_meta values ('app', '{"is_ready": ${isReady}}') on conflict (key) do update set value = excluded.value`);
  await admin.unsafe(`create schema if not exists ${VIEWS}; create or replace view ${VIEWS}._ponder_meta as select * from ponder_t._ponder_meta`);
}
const setReady = (isReady: 0 | 1) => admin.unsafe(`update ponder_t._ponder_meta set value = '{"is_ready": ${isReady}}'`);
const dropIndex = () => admin.unsafe(`drop schema if exists ponder_t cascade`);

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  admin = postgres(database.url, { max: 1, onnotice: () => {} });
  index = new IndexReadiness({ url: database.url, viewsSchema: VIEWS, genesis: async () => genesis, devnet: true, pollMs: 60_000 });
  await index.start();
  const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: database.url, max: 2 }), viewsSchema: VIEWS });
  t = testApp({ db, redis, reads, index, rateLimit: { keyPrefix: `${prefix}:rl` } });
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await index?.close();
  await Promise.allSettled([db?.destroy(), redis?.quit(), admin?.end(), t?.deps.reads.destroy()]);
  await database?.drop();
});

describe("index readiness", () => {
  it("is not ready before the views exist; reads answer 503 UNAVAILABLE with Retry-After, documents 200", async () => {
    await index.check();
    expect(index.ready()).toBe(false);
    expect(index.state().waiting).toMatch(/views/);
    for (const path of ["/v1/agent/products", "/v1/agent/vaults", "/v1/tokens", "/v1/agent/grid/tokens"]) {
      const res = await t.app.request(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get("Retry-After"), path).toBe("5");
      expect((await json(res)).code).toBe("UNAVAILABLE");
    }
    expect((await t.app.request("/v1/agent/openapi.json")).status).toBe(200);
  });

  it("waits for is_ready, then stays ready while the indexer catches up after a crash restart (latch)", async () => {
    await makeViews(0);
    await index.check();
    expect(index.state()).toMatchObject({ ready: false, waiting: expect.stringMatching(/catching up/) });
    await setReady(1);
    await index.check();
    expect(index.state()).toMatchObject({ ready: true, chain: CHAIN_A, generation: expect.stringMatching(/^\d+$/) });
    await setReady(0); // a crash restart resets is_ready over the same views
    await index.check();
    expect(index.ready()).toBe(true);
  });

  it("answers 503 (not 500) when a view is missing, and closes the gate at once", async () => {
    // The meta view exists, the projections' views do not: a query fails with 42P01.
    const res = await t.app.request("/v1/tokens");
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("5");
    expect((await json(res)).code).toBe("UNAVAILABLE");
    expect(index.ready()).toBe(false);
    await index.check();
  });

  it("closes when the views vanish (a devnet restart drops the index) and reopens only at the next is_ready", async () => {
    await setReady(1);
    await index.check();
    expect(index.ready()).toBe(true);
    await dropIndex();
    await index.check();
    expect(index.ready()).toBe(false);
    await makeViews(0);
    await index.check();
    expect(index.ready()).toBe(false); // the latch went with the views
    await setReady(1);
    await index.check();
    expect(index.ready()).toBe(true);
  });

  it("on the devnet, does not serve an index of an earlier chain", async () => {
    await admin.unsafe(`create table public.devnet_genesis (hash text not null); insert into public.devnet_genesis values ('${CHAIN_A}')`);
    genesis = CHAIN_B; // the devnet restarted; the indexer has not dropped the old index yet
    await dropIndex(); // a new generation of views makes the readiness read the genesis again
    await makeViews(1);
    await index.check();
    expect(index.state()).toMatchObject({ ready: false, waiting: expect.stringMatching(/earlier devnet/), chain: CHAIN_B });
    await admin.unsafe(`update public.devnet_genesis set hash = '${CHAIN_B}'`);
    await index.check();
    expect(index.state()).toMatchObject({ ready: true, chain: CHAIN_B });
  });
});

describe("scans of the running chain only", () => {
  const payload = { asOf: "2025-06-01T12:00:00.000Z", feeBps: 30, days: 60, amountUsd: 200, tokens: [] };

  it("a scan of another chain answers 503 SCAN_PREPARING with the worker's retry time", async () => {
    expect(index.state()).toMatchObject({ ready: true, chain: CHAIN_B });
    await storeScan(db, "grid-tokens", "latest", payload, new Date("2025-06-01T12:00:00.000Z"), CHAIN_A);
    const res = await t.app.request("/v1/agent/grid/tokens");
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe(String(SCAN_RETRY_SECONDS));
    expect(await json(res)).toMatchObject({ code: "SCAN_PREPARING", error: expect.stringContaining(`${SCAN_RETRY_SECONDS} s`) });
  });

  it("a scan with no chain is not served either; one of this chain is", async () => {
    await storeScan(db, "grid-tokens", "latest", payload, new Date("2025-06-01T12:00:00.000Z"));
    expect((await t.app.request("/v1/agent/grid/tokens")).status).toBe(503);
    await storeScan(db, "grid-tokens", "latest", payload, new Date("2025-06-01T12:10:00.000Z"), CHAIN_B);
    const res = await t.app.request("/v1/agent/grid/tokens");
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ scannedAt: "2025-06-01T12:10:00.000Z", scanned: 0 });
  });

  it("an API that started while the RPC was down serves no scan (503 UNAVAILABLE with Retry-After) until it knows the chain", async () => {
    let rpcUp = false;
    const late = new IndexReadiness({
      url: database.url,
      viewsSchema: VIEWS,
      genesis: async () => {
        if (!rpcUp) throw new Error("fetch failed");
        return CHAIN_B;
      },
      devnet: true,
      pollMs: 60_000,
    });
    try {
      await late.start();
      expect(late.chain()).toBeUndefined();
      const app = testApp({ ...t.deps, index: late }).app;
      // A scan of the running chain is stored, but nothing says which chain this is yet.
      const before = await app.request("/v1/agent/grid/tokens");
      expect(before.status).toBe(503);
      expect(before.headers.get("Retry-After")).toBe("5");
      expect(await json(before)).toMatchObject({ code: "UNAVAILABLE", error: expect.stringContaining("genesis") });
      expect((await app.request("/v1/strategy-finder")).status).toBe(503);
      rpcUp = true;
      await late.check(); // the next poll reads the genesis
      expect(late.chain()).toBe(CHAIN_B);
      expect((await app.request("/v1/agent/grid/tokens")).status).toBe(200);
    } finally {
      await late.close();
    }
  });
});
