// The read cache's parts against a real Postgres: the version rule and keys (pure), the cursor rule
// (pure), and the projection version tracker over a schema shaped like Ponder's (a `_ponder_checkpoint`
// table behind a views schema, notifications sent the way Ponder's trigger sends them).
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import postgres from "postgres";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCacheCounter } from "../../api/middleware/metrics.js";
import { stringify } from "../../api/envelope.js";
import { accountBody, accountEntry } from "../../usecases/answers/account-body.js";
import { accountKey, activityKey, AnswerCache, createReadCache, isServable } from "../../usecases/read-cache.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createDb, migrateToLatest } from "../../adapters/db/connect.js";
import { createProjectionsDb, type Projections } from "../../adapters/db/projections.js";
import { isUnchanged } from "../../usecases/activity/cursors.js";
import { notifiedTable, parseNotification, ProjectionVersion } from "../../adapters/db/projection-version.js";
import { connectRedis, createTestDatabase, deleteKeys, randomPrefix, testApp, testClock, type TestDatabase } from "./support.js";
import { createActivityView } from "../helpers/activity-view.js";

const until = async (what: string, check: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("answer cache (pure)", () => {
  it("serves an entry only at its own version, while the tracker is usable and the entry is young", () => {
    expect(isServable({ version: 3, filledAt: 1_000 }, 3, 1_500, 5_000)).toBe(true);
    expect(isServable({ version: 3, filledAt: 1_000 }, 4, 1_500, 5_000)).toBe(false); // a change since
    expect(isServable({ version: 3, filledAt: 1_000 }, undefined, 1_500, 5_000)).toBe(false); // unusable
    expect(isServable({ version: 3, filledAt: 1_000 }, 3, 6_000, 5_000)).toBe(false); // too old
    expect(isServable({ version: 3, filledAt: 1_000 }, 3, 999, 5_000)).toBe(false); // clock went back
  });

  it("keys: owner case does not matter; cursor, limit and closedDays do", () => {
    const owner = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(activityKey(owner, "abc", 500)).toBe(activityKey(owner.toLowerCase(), "abc", 500));
    expect(activityKey(owner, "abc", 500)).not.toBe(activityKey(owner, "abd", 500));
    expect(activityKey(owner, "abc", 500)).not.toBe(activityKey(owner, "abc", 50));
    expect(accountKey(owner, 7)).toBe(accountKey(owner.toLowerCase(), 7));
    expect(accountKey(owner, 7)).not.toBe(accountKey(owner, 0));
  });

  it("drops an entry filled at an older version, and bounds entries by count and size", () => {
    const cache = new AnswerCache<{ body: string }>({ maxEntries: 3, maxBytes: 100, maxAgeMs: 1_000, sizeOf: (v) => v.body.length });
    cache.set("a", { body: "x".repeat(10) }, 1, 0);
    expect(cache.get("a", 1, 10)?.body).toHaveLength(10);
    expect(cache.get("a", 2, 10)).toBeUndefined();
    expect(cache.size).toBe(0); // versions only grow: gone for good
    for (const key of ["b", "c", "d", "e"]) cache.set(key, { body: "y" }, 1, 0);
    expect(cache.size).toBe(3);
    cache.set("big", { body: "z".repeat(200) }, 1, 0); // larger than the whole cache: not kept
    expect(cache.get("big", 1, 10)).toBeUndefined();
    for (const key of ["f", "g"]) cache.set(key, { body: "w".repeat(45) }, 1, 0);
    expect(cache.bytes).toBeLessThanOrEqual(100);
  });

  it("an account entry re-stamps asOf and closedSince: byte for byte the body a read at that time gives", () => {
    const account = {
      owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      asOf: "2026-11-01T00:00:00.000Z",
      closedSince: "2026-10-25T00:00:00.000Z",
      vaults: [{ vault: "0xCA5747a82dD5e18De7E5e47Eb42e3d5465B06CB2", asOf: "not the field", shares: "1.5", sharesUnits: "1500000000000" }],
      depositRequests: [],
      withdrawalRequests: [],
      limitOrders: [{ id: "7", closedSince: "x", price: 1.25 }],
      grids: [],
      ladderStrategies: [],
      baskets: [],
    } as unknown as Parameters<typeof accountEntry>[0];
    const valuedAt = Date.parse("2026-11-05T12:35:30.000Z");
    const entry = accountEntry(account, 123, valuedAt);
    expect(entry.listedUntilMs).toBe(123);
    const later = new Date("2026-11-05T12:34:56.789Z");
    const cutoff = Math.floor(later.getTime() / 1000) - 3 * 86400;
    // The chain's clock is ahead here: asOf is the figures' block time, never before a valuation.
    const ahead = stringify({ data: { ...account, asOf: new Date(valuedAt).toISOString(), closedSince: new Date(cutoff * 1000).toISOString() } });
    expect(accountBody(entry, later, 3)).toBe(ahead);
    // Once the server's clock is past it, asOf is the server's.
    const after = new Date("2026-11-05T12:40:00.000Z");
    const cutoffAfter = Math.floor(after.getTime() / 1000) - 3 * 86400;
    const fresh = stringify({ data: { ...account, asOf: after.toISOString(), closedSince: new Date(cutoffAfter * 1000).toISOString() } });
    expect(accountBody(entry, after, 3)).toBe(fresh);
  });

  it("reads Ponder's notification payloads: table names, partitions folded, junk refused", () => {
    expect(parseNotification('["activity","grid"]')).toEqual(["activity", "grid"]);
    expect(parseNotification("[]")).toEqual([]);
    expect(parseNotification('["activity_4663"]')).toEqual(["activity"]);
    expect(parseNotification("not json")).toBeUndefined();
    expect(parseNotification('{"a":1}')).toBeUndefined();
    expect(notifiedTable("vault_snapshot")).toBe("vault_snapshot");
  });

  it("a poll is unchanged only with no change, no reorg, and the same position and trail", () => {
    const parent = { position: 5_000_010n, trail: [{ number: 5n, hash: "0xaa" }] };
    expect(isUnchanged(parent, { position: 5_000_010n, trail: [{ number: 5n, hash: "0xAA" }], reorged: false, changes: 0 })).toBe(true);
    expect(isUnchanged(parent, { position: 5_000_010n, trail: [{ number: 5n, hash: "0xaa" }], reorged: true, changes: 0 })).toBe(false);
    expect(
      isUnchanged(parent, {
        position: 6_000_000n,
        trail: [
          { number: 6n, hash: "0xbb" },
          { number: 5n, hash: "0xaa" },
        ],
        reorged: false,
        changes: 1,
      }),
    ).toBe(false);
    expect(isUnchanged(parent, { position: 5_000_010n, trail: [{ number: 5n, hash: "0xcc" }], reorged: false, changes: 0 })).toBe(false);
    expect(isUnchanged({ position: 0n, trail: [] }, { position: 0n, trail: [], reorged: false, changes: 0 })).toBe(true);
  });
});

describe("projection version tracker on Postgres", () => {
  const VIEWS = "fake_views";
  const BASE = "fake_ponder";
  let database: TestDatabase;
  let sql: postgres.Sql;
  let tracker: ProjectionVersion;
  const app = `agent-test-version-${process.pid}`;

  const notify = (tables: string[]) => sql`select pg_notify(${`${VIEWS}_live_query`}, ${JSON.stringify(tables)})`;
  const moveCheckpoint = (value: string) => sql`update ${sql(BASE)}."_ponder_checkpoint" set latest_checkpoint = ${value}`;
  /** What a Ponder reorg does to the checkpoint table's triggers (drop and create again: new OIDs). */
  const recreateTrigger = async () => {
    await sql.unsafe(`drop trigger if exists live_query_notify on "${BASE}"."_ponder_checkpoint"`);
    await sql.unsafe(`create trigger live_query_notify after update on "${BASE}"."_ponder_checkpoint" for each statement execute function "${BASE}".noop()`);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    await sql.unsafe(`
      create schema "${BASE}";
      create schema "${VIEWS}";
      create table "${BASE}"."_ponder_checkpoint" (chain_name text primary key, chain_id bigint, latest_checkpoint varchar(75), safe_checkpoint varchar(75), finalized_checkpoint varchar(75));
      insert into "${BASE}"."_ponder_checkpoint" values ('devnet', 4663, '1', '1', '1');
      create function "${BASE}".noop() returns trigger language plpgsql as $$ begin return null; end; $$;
      create view "${VIEWS}"."_ponder_checkpoint" as select * from "${BASE}"."_ponder_checkpoint";
      create table "${VIEWS}".activity (owner text not null, position numeric(78,0) not null, primary key (owner, position));`);
    await recreateTrigger();
    tracker = new ProjectionVersion({ url: database.url, viewsSchema: VIEWS, pollMs: 50, applicationName: app }).start();
  });

  afterAll(async () => {
    await tracker?.close();
    await sql?.end();
    await database?.drop();
  });

  it("turns usable at its first heartbeat; a block notification bumps its tables, not the others", async () => {
    await until("usable", () => tracker.snapshot() !== undefined);
    const activity = tracker.snapshot("activity")!;
    const grid = tracker.snapshot("grid")!;
    const all = tracker.snapshot()!;
    await notify(["grid"]);
    await until("grid bumped", () => !tracker.isCurrent(grid, "grid"));
    expect(tracker.isCurrent(activity, "activity")).toBe(true);
    expect(tracker.isCurrent(all)).toBe(false);
    const activity2 = tracker.snapshot("activity")!;
    await notify(["activity", "vault"]);
    await until("activity bumped", () => !tracker.isCurrent(activity2, "activity"));
    // An empty list (a block that wrote nothing) changes nothing.
    const quiet = tracker.snapshot("activity")!;
    await notify([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(tracker.isCurrent(quiet, "activity")).toBe(true);
  });

  it("barrier: once it resolves, every commit visible before it was called has been heard", async () => {
    for (let i = 0; i < 20; i++) {
      const grid = tracker.snapshot("grid")!;
      await notify(["grid"]); // committed: visible to everyone from here on
      expect(await tracker.barrier()).toBe(true);
      expect(tracker.isCurrent(grid, "grid")).toBe(false);
    }
    // Concurrent callers share barrier statements, and all resolve.
    expect(await Promise.all(Array.from({ length: 50 }, () => tracker.barrier()))).toEqual(Array.from({ length: 50 }, () => true));
  });

  it("a checkpoint move with a block notification is explained; one without (backfill) bumps everything", async () => {
    // With a notification (a realtime block): the table-level bump is all there is.
    let activity = tracker.snapshot("activity")!;
    await sql.begin(async (tx) => {
      await tx`update ${tx(BASE)}."_ponder_checkpoint" set latest_checkpoint = '2'`;
      await tx`select pg_notify(${`${VIEWS}_live_query`}, '["grid"]')`;
    });
    const seen = tracker.stats().heartbeats;
    await until("two polls", () => tracker.stats().heartbeats >= seen + 2);
    expect(tracker.isCurrent(activity, "activity")).toBe(true);
    // Without (a backfill batch): every version moves within a poll or two.
    activity = tracker.snapshot("activity")!;
    await moveCheckpoint("3");
    await until("activity bumped by the silent write", () => !tracker.isCurrent(activity, "activity"));
  });

  it("a reorg (triggers on _ponder_checkpoint re-created) and re-created views bump everything", async () => {
    let activity = tracker.snapshot("activity")!;
    await recreateTrigger();
    await until("bumped by the reorg", () => !tracker.isCurrent(activity, "activity"));
    activity = tracker.snapshot("activity")!;
    await sql.unsafe(`drop view "${VIEWS}"."_ponder_checkpoint"; create view "${VIEWS}"."_ponder_checkpoint" as select * from "${BASE}"."_ponder_checkpoint";`);
    await until("bumped by the new views", () => !tracker.isCurrent(activity, "activity"));
  });

  it("its listen connection killed: entries read before are not vouched for again; usable again soon", async () => {
    await until("usable", () => tracker.usable);
    const before = tracker.snapshot("activity")!;
    const listens = tracker.stats().listens;
    const killed =
      await sql`select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = ${`${app}-listen`} and datname = ${database.name}`;
    expect(killed.length).toBeGreaterThan(0);
    // A block notified while the connection is down is lost; the tracker must not vouch for old entries.
    await notify(["activity"]);
    await until("listening again", () => tracker.stats().listens >= listens + 2, 10_000); // both channels
    await until("usable again", () => tracker.usable, 10_000);
    expect(tracker.isCurrent(before, "activity")).toBe(false);
  });

  it("activity: a block bumps the owners it wrote for, not the others; a revert or a reorg bumps every owner", async () => {
    const A = "0xaaaa000000000000000000000000000000000001";
    const B = "0xbbbb000000000000000000000000000000000002";
    /** A block as Ponder commits it: the rows and the notification in one transaction. */
    let heard = tracker.stats().notifications;
    const rows = async (...entries: [string, number][]) => {
      heard = tracker.stats().notifications;
      await sql.begin(async (tx) => {
        for (const [owner, position] of entries) await tx`insert into ${tx(VIEWS)}.activity values (${owner}, ${position})`;
        await tx`select pg_notify(${`${VIEWS}_live_query`}, '["activity"]')`;
      });
    };
    /** The notification was received and its owner query answered. */
    const settled = (owner: string) =>
      until("owner query answered", () => tracker.stats().notifications > heard && tracker.snapshot("activity", owner) !== undefined);
    await rows([A, 100]); // the first activity notification starts the track (every owner bumped)
    await settled(A);
    let a = tracker.snapshot("activity", A)!;
    let b = tracker.snapshot("activity", B)!;
    await rows([A, 200]);
    await until("A bumped", () => tracker.snapshot("activity", A) !== undefined && !tracker.isCurrent(a, "activity", A));
    expect(tracker.isCurrent(b, "activity", B)).toBe(true);
    // A revert (rows deleted, the newest position falls): every owner.
    a = tracker.snapshot("activity", A)!;
    heard = tracker.stats().notifications;
    await sql.begin(async (tx) => {
      await tx`delete from ${tx(VIEWS)}.activity where position >= 200`;
      await tx`select pg_notify(${`${VIEWS}_live_query`}, '["activity"]')`;
    });
    await settled(B);
    expect(tracker.isCurrent(b, "activity", B)).toBe(false);
    // A reorg whose replacement rows lie above the newest position seen, for A only: the trigger OIDs
    // Ponder re-created in the revert's transaction tell, so B goes too.
    b = tracker.snapshot("activity", B)!;
    await recreateTrigger();
    await rows([A, 300]);
    await settled(B);
    expect(tracker.isCurrent(b, "activity", B)).toBe(false);
  });

  it("accounts: owner rows are tracked per owner through the activity log; a shared table bumps every owner", async () => {
    const A = "0xaaaa000000000000000000000000000000000003";
    const B = "0xbbbb000000000000000000000000000000000004";
    const SHARED = ["vault", "token"];
    let heard = tracker.stats().notifications;
    /** A block: activity rows of `owners` with the owner tables it wrote, in one transaction. */
    const block = async (tables: string[], ...entries: [string, number][]) => {
      heard = tracker.stats().notifications;
      await sql.begin(async (tx) => {
        for (const [owner, position] of entries) await tx`insert into ${tx(VIEWS)}.activity values (${owner}, ${position})`;
        await tx`select pg_notify(${`${VIEWS}_live_query`}, ${JSON.stringify(tables)})`;
      });
      await until("notification heard and owners read", () => tracker.stats().notifications > heard && tracker.ownerSnapshot(A, SHARED) !== undefined);
    };
    // The last test's reorg is seen by a poll too: let two polls pass first.
    const polls = tracker.stats().heartbeats;
    await until("two polls", () => tracker.stats().heartbeats >= polls + 2);
    await block(["activity", "limit_order"], [A, 1_000]);
    let a = tracker.ownerSnapshot(A, SHARED)!;
    let b = tracker.ownerSnapshot(B, SHARED)!;
    // A's order filled: A's answer goes, B's stays.
    await block(["activity", "limit_order", "ladder_leg"], [A, 1_100]);
    expect(tracker.ownerSnapshot(A, SHARED)).not.toBe(a);
    expect(tracker.ownerSnapshot(B, SHARED)).toBe(b);
    // A table the answers do not read (a pool swap) changes neither.
    a = tracker.ownerSnapshot(A, SHARED)!;
    await block(["pool_swap"]);
    expect(tracker.ownerSnapshot(A, SHARED)).toBe(a);
    expect(tracker.ownerSnapshot(B, SHARED)).toBe(b);
    // A shared table (a token's price): every owner.
    await block(["token", "pool_swap"]);
    expect(tracker.ownerSnapshot(A, SHARED)).not.toBe(a);
    expect(tracker.ownerSnapshot(B, SHARED)).not.toBe(b);
    // An owner table written without activity (the indexer always logs one; if not): every owner.
    a = tracker.ownerSnapshot(A, SHARED)!;
    b = tracker.ownerSnapshot(B, SHARED)!;
    await block(["basket_balance"]);
    expect(tracker.ownerSnapshot(A, SHARED)).not.toBe(a);
    expect(tracker.ownerSnapshot(B, SHARED)).not.toBe(b);
  });

  it("views missing (no indexer yet, or the indexer on PGlite): never usable", async () => {
    const other = new ProjectionVersion({ url: database.url, viewsSchema: "no_such_views", pollMs: 50, applicationName: `${app}-none` }).start();
    try {
      await new Promise((r) => setTimeout(r, 400));
      expect(other.snapshot()).toBeUndefined();
      expect(other.stats().pollErrors).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });
});

describe("activity answers from the cache (an activity log shaped like the indexer's views)", () => {
  const VIEWS = "cache_views";
  const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
  const VAULT = "0xca5747a82dd5e18de7e5e47eb42e3d5465b06cb2";
  let database: TestDatabase;
  let sql: postgres.Sql;
  let tracker: ProjectionVersion;
  let cached: ReturnType<typeof testApp>;
  let plain: ReturnType<typeof testApp>;
  let redis: Redis;
  let db: Kysely<Database>;
  let reads: Kysely<Projections>;
  let statements = 0;
  let apiSql: postgres.Sql;
  const clock = testClock(new Date());
  const prefix = randomPrefix();
  const registry = new Registry();

  /** A block as Ponder commits it: its rows and the notification, in one transaction. */
  const block = (number: number, owner = OWNER) =>
    sql.begin(async (tx) => {
      await tx`insert into ${tx(VIEWS)}.activity ${tx({
        owner: owner.toLowerCase(),
        position: String(number * 1_000_000 + 10),
        kind: "vault.shares",
        subject: VAULT,
        contract: VAULT,
        data: tx.json({ delta: "1000" }),
        tx_hash: `0x${number.toString(16).padStart(64, "0")}`,
        block_number: String(number),
        block_hash: `0x${"ab"}${number.toString(16).padStart(62, "0")}`,
        log_index: 1,
        timestamp: 1_700_000_000 + number,
      })}`;
      await tx`update ${tx(VIEWS)}."_ponder_checkpoint" set latest_checkpoint = ${String(number)}`;
      await tx`select pg_notify(${`${VIEWS}_live_query`}, '["activity"]')`;
    });

  const get = async (app: ReturnType<typeof testApp>, query: string) => {
    const response = await app.app.request(`/v1/agent/accounts/${OWNER}/activity${query}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return response.text();
  };
  const data = (text: string) => (JSON.parse(text) as { data: { cursor: string; changes: { id: string }[]; since: string; now: string } }).data;
  const hits = async () => (await registry.getSingleMetricAsString("api_read_cache_total")).match(/result="hit"} (\d+)/)?.[1] ?? "0";

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    await createActivityView(sql, VIEWS);
    await sql`create table ${sql(VIEWS)}."_ponder_checkpoint" (chain_name text primary key, latest_checkpoint text)`;
    await sql`insert into ${sql(VIEWS)}."_ponder_checkpoint" values ('devnet', '0')`;
    // Every statement of the API's two pools is counted: a cache hit must send none.
    const debug = () => void statements++;
    apiSql = postgres(database.url, { max: 2, onnotice: () => {}, debug });
    db = createDb({ url: database.url, sql: apiSql, schema: "agent_api" });
    await migrateToLatest(db, "agent_api");
    reads = createProjectionsDb({ sql: postgres(database.url, { max: 2, onnotice: () => {}, debug }), viewsSchema: VIEWS });
    redis = await connectRedis();
    tracker = new ProjectionVersion({ url: database.url, viewsSchema: VIEWS, pollMs: 50 }).start();
    const readCache = createReadCache({ version: tracker, entries: 1000, maxBytes: 1 << 20, counter: readCacheCounter(registry) });
    cached = testApp({ db, redis, reads, now: clock.now, readCache, metricsRegistry: registry, rateLimit: { keyPrefix: `${prefix}:a` } });
    plain = testApp({ db, redis, reads, now: clock.now, rateLimit: { keyPrefix: `${prefix}:b` } });
    await until("tracker usable", () => tracker.usable);
  });

  afterAll(async () => {
    await tracker?.close();
    await deleteKeys(redis, prefix);
    await Promise.allSettled([db?.destroy().then(() => apiSql?.end()), reads?.destroy(), sql?.end(), redis?.quit()]);
    await database?.drop();
  });

  it("a repeated no-change poll answers the same cursor, from memory (no statement), byte for byte as the database path", async () => {
    await block(100);
    const baseline = data(await get(cached, ""));
    await block(101);
    const first = data(await get(cached, `?cursor=${baseline.cursor}`));
    expect(first.changes.map((c) => c.id)).toEqual(["101000010"]);
    const quiet = await get(cached, `?cursor=${first.cursor}`); // fills the entry
    expect(data(quiet).cursor).toBe(first.cursor); // nothing new: the same cursor
    expect(data(quiet).changes).toEqual([]);
    const before = statements;
    const hitsBefore = Number(await hits());
    const again = await get(cached, `?cursor=${first.cursor}`);
    expect(statements).toBe(before);
    expect(Number(await hits())).toBe(hitsBefore + 1);
    expect(again).toBe(quiet);
    // The same request through an app without the cache: the same bytes (the same clock).
    expect(await get(plain, `?cursor=${first.cursor}`)).toBe(again);
    // A poll with changes, repeated, is served from memory too, and equal to the database's.
    const withChange = await get(cached, `?cursor=${baseline.cursor}`);
    const n = statements;
    expect(await get(cached, `?cursor=${baseline.cursor}`)).toBe(withChange);
    expect(statements).toBe(n);
    expect(await get(plain, `?cursor=${baseline.cursor}`)).toBe(withChange);
  });

  it("a block committed after the entry was filled shows at the next poll", async () => {
    const baseline = data(await get(cached, ""));
    const quiet = data(await get(cached, `?cursor=${baseline.cursor}`));
    expect(quiet.changes).toEqual([]);
    await get(cached, `?cursor=${baseline.cursor}`); // a hit
    await block(102);
    // Once the commit is visible to another session (read it there, as an agent's other tool could),
    // the very next poll must see it.
    expect((await sql`select 1 from ${sql(VIEWS)}.activity where position = 102000010`).length).toBe(1);
    const next = data(await get(cached, `?cursor=${baseline.cursor}`));
    expect(next.changes.map((c) => c.id)).toEqual(["102000010"]);
  });

  it("a no-change poll with a cursor older than a day answers a new cursor (issued now), not the cached one", async () => {
    const baseline = data(await get(cached, ""));
    expect(data(await get(cached, `?cursor=${baseline.cursor}`)).cursor).toBe(baseline.cursor);
    clock.advance(25 * 3600_000);
    const renewed = data(await get(cached, `?cursor=${baseline.cursor}`));
    expect(renewed.cursor).not.toBe(baseline.cursor);
    expect(renewed.changes).toEqual([]);
    expect(renewed.since).toBe(baseline.since);
    // The new one was issued now, and itself answers itself while nothing changes.
    const next = data(await get(cached, `?cursor=${renewed.cursor}`));
    expect(next.cursor).toBe(renewed.cursor);
    expect(next.since).toBe(clock.now().toISOString());
  });
});
