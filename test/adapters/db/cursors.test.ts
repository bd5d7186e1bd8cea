// The cursor rows an API process keeps: a derived cursor it inserted is known whole, so the agent's next
// poll with it costs no SELECT; one another process (or an earlier poll) inserted keeps its first
// creation time, which only the table knows.
import type { Kysely } from "kysely";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_API_SCHEMA } from "../../../adapters/db/api-schema.js";
import { createDb } from "../../../adapters/db/connect.js";
import { CursorCache, CursorStore } from "../../../adapters/db/cursors.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../../adapters/db/projections.js";
import { createTestDatabase, useApiFixture } from "../../api/support.js";
import { branchHash, createActivityView, insertChange } from "../../helpers/activity-view.js";

const api = useApiFixture();
const OWNER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const trail = [{ number: 12n, hash: `0x${"ab".repeat(32)}` }];
const VIEWS = "cursor_views";

let sql: postgres.Sql;
let reads: Kysely<Projections>;
beforeAll(async () => {
  sql = postgres(api.database.url, { max: 1, onnotice: () => {} });
  await createActivityView(sql, VIEWS);
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: api.database.url, max: 1 }), viewsSchema: VIEWS });
});
afterAll(async () => {
  await Promise.allSettled([reads?.destroy(), sql?.end()]);
});

/** A process's store over the fixture's pools (and `cache`, when given). */
const storeOf = (cache?: CursorCache, db: Kysely<any> = api.db, over: Kysely<Projections> = reads) => new CursorStore({ db, reads: over, cache });

describe("a store's derived cursors", () => {
  it("remembers the cursor it inserted, with the stored creation time, and then answers it with no SELECT", async () => {
    const cache = new CursorCache(10);
    const now = new Date("2026-11-27T10:00:00.000Z");
    await storeOf(cache).storeDerived({ id: "derived-cursor-aaaaaaaaaaaa", owner: OWNER.toUpperCase(), position: 12_000_010n, trail }, now);
    expect(cache.get("derived-cursor-aaaaaaaaaaaa")).toEqual({ id: "derived-cursor-aaaaaaaaaaaa", owner: OWNER, position: 12_000_010n, trail, createdAt: now });
    // With the table emptied behind its back, the cache alone answers: no SELECT was needed.
    await api.db.deleteFrom("activity_cursor").where("id", "=", "derived-cursor-aaaaaaaaaaaa").execute();
    expect((await storeOf(cache).find("derived-cursor-aaaaaaaaaaaa", OWNER, now))?.position).toBe(12_000_010n);
  });

  it("does not take a cursor that existed for one it created: the next lookup reads the first creation time", async () => {
    const first = new Date("2026-11-27T10:00:00.000Z");
    const later = new Date("2026-11-27T11:00:00.000Z");
    await storeOf().storeDerived({ id: "derived-cursor-bbbbbbbbbbbb", owner: OWNER, position: 5n, trail: [] }, first);
    const cache = new CursorCache(10);
    await storeOf(cache).storeDerived({ id: "derived-cursor-bbbbbbbbbbbb", owner: OWNER, position: 5n, trail: [] }, later);
    expect(cache.get("derived-cursor-bbbbbbbbbbbb")).toBeUndefined();
    expect(cache.isStored("derived-cursor-bbbbbbbbbbbb")).toBe(true);
    expect((await storeOf(cache).find("derived-cursor-bbbbbbbbbbbb", OWNER, later))?.createdAt).toEqual(first);
  });
});

describe("a store's derived cursors under concurrent polls", () => {
  // Two API replicas (a writer each) storing the same ids in opposite orders at the same moment: before the
  // INSERT took its rows in id order, Postgres killed one as a deadlock's victim (the soak's activity 500s).
  it("two replicas storing the same cursors in opposite orders never deadlock", async () => {
    const replica = createDb({ url: api.database.url, schema: DEFAULT_API_SCHEMA, max: 2 });
    const [first, second] = [storeOf(), storeOf(undefined, replica)];
    try {
      const now = new Date("2026-11-27T13:00:00.000Z");
      for (let round = 0; round < 8; round++) {
        const ids = Array.from({ length: 300 }, (_, i) => `both-r${round}-${i.toString().padStart(6, "0")}`);
        const store = (cursors: CursorStore, order: string[]) =>
          Promise.all(order.map((id) => cursors.storeDerived({ id, owner: OWNER, position: 9_000_001n, trail: [] }, now)));
        await Promise.all([store(first, ids), store(second, [...ids].reverse())]);
        const rows = await sql.unsafe(`select count(*)::int as n from "${DEFAULT_API_SCHEMA}".activity_cursor where id like $1`, [`both-r${round}-%`]);
        expect(rows[0]!.n).toBe(300);
      }
    } finally {
      await replica.destroy();
    }
  });

  const row = (id: string) => ({ id, owner: OWNER, position: 7_000_001n, trail: id.endsWith("0") ? [] : trail });

  it("stores the cursors of polls arriving together in one INSERT, each row whole, a repeated id once", async () => {
    const now = new Date("2026-11-27T12:00:00.000Z");
    const ids = Array.from({ length: 40 }, (_, i) => `batch-cursor-${i.toString().padStart(12, "0")}`);
    const cache = new CursorCache(100);
    const store = storeOf(cache);
    // The first id twice: two polls with the same cursor at the same moment.
    await Promise.all([...ids.map((id) => store.storeDerived(row(id), now)), store.storeDerived(row(ids[0]!), now)]);
    const stored = await api.db.selectFrom("activity_cursor").selectAll().where("id", "in", ids).orderBy("id").execute();
    expect(stored.map((r) => r.id)).toEqual(ids);
    // One transaction wrote them all.
    const xmins = await sql.unsafe(`select count(distinct xmin::text)::int as n from "${DEFAULT_API_SCHEMA}".activity_cursor where id = any($1)`, [ids]);
    expect(xmins[0]!.n).toBe(1);
    // A row without a trail keeps nulls for its block, one with a trail its newest block.
    expect(stored[0]).toMatchObject({ block_number: null, block_hash: null, trail: { blocks: [] }, created_at: now });
    expect(stored[1]).toMatchObject({ block_number: "12", block_hash: trail[0]!.hash, trail: { blocks: [["12", trail[0]!.hash]] } });
    // Each row is held whole, the repeated one too (one call created it; the other learnt it stored).
    expect(ids.every((id) => cache.get(id)?.createdAt.getTime() === now.getTime())).toBe(true);
  });

  it("a poll that repeats a cursor another process stored learns it stored, not its creation time", async () => {
    const now = new Date("2026-11-27T12:00:00.000Z");
    await storeOf().storeDerived(row("elsewhere-cursor-aaaaaaaaa"), now);
    const cache = new CursorCache(10);
    await storeOf(cache).storeDerived(row("elsewhere-cursor-aaaaaaaaa"), new Date(now.getTime() + 1000));
    expect(cache.isStored("elsewhere-cursor-aaaaaaaaa")).toBe(true);
    expect(cache.get("elsewhere-cursor-aaaaaaaaa")).toBeUndefined();
  });

  it("rejects every poll of a batch whose INSERT fails, then stores the next batch", async () => {
    const now = new Date("2026-11-27T12:00:00.000Z");
    const table = `"${DEFAULT_API_SCHEMA}".activity_cursor`;
    await sql.unsafe(`alter table ${table} add constraint no_failing_ids check (id not like 'failing-%')`);
    try {
      const store = storeOf();
      const results = await Promise.allSettled([
        store.storeDerived(row("failing-cursor-aaaaaaaaaaa1"), now),
        store.storeDerived(row("passing-cursor-aaaaaaaaaaa1"), now),
      ]);
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
      expect(await api.db.selectFrom("activity_cursor").select("id").where("id", "=", "passing-cursor-aaaaaaaaaaa1").execute()).toEqual([]);
    } finally {
      await sql.unsafe(`alter table ${table} drop constraint no_failing_ids`);
    }
    await storeOf().storeDerived(row("passing-cursor-aaaaaaaaaaa2"), now);
    expect(await api.db.selectFrom("activity_cursor").select("id").where("id", "=", "passing-cursor-aaaaaaaaaaa2").execute()).toHaveLength(1);
  });
});

describe("a store's poll at a cursor", () => {
  const change = (block: number, logIndex: number, branch = "a") =>
    insertChange(sql, VIEWS, { block, logIndex, owner: OWNER, branch, kind: "vault.shares", vault: OWNER, data: { delta: "1" } });

  it("reads a cursor it does not hold with the poll (its trail's blocks and the changes after it), then holds it", async () => {
    await change(20, 1);
    await change(21, 2, "b");
    await change(22, 3);
    const now = new Date("2026-11-27T10:00:00.000Z");
    // A cursor at block 20's change, with a trail of blocks 20 (as it is) and 21 (on another branch than the log's).
    const cursorTrail = [
      { number: 21n, hash: branchHash(21, "a") },
      { number: 20n, hash: branchHash(20, "a") },
    ];
    await storeOf().storeDerived({ id: "poll-cursor-cccccccccccc", owner: OWNER, position: 21_000_020n, trail: cursorTrail }, now);
    const cache = new CursorCache(10);
    const read = await storeOf(cache).readPollAt("poll-cursor-cccccccccccc", OWNER.toUpperCase(), now, 10);
    expect(read?.cursor).toEqual({ id: "poll-cursor-cccccccccccc", owner: OWNER, position: 21_000_020n, trail: cursorTrail, createdAt: now });
    // What the log holds over the trail (blocks 20..21, newest first) and the changes after the position.
    expect(read?.blocks).toEqual([
      { number: 21n, hash: branchHash(21, "b") },
      { number: 20n, hash: branchHash(20, "a") },
    ]);
    expect(read?.changes.map((c) => c.position)).toEqual([22_000_030n]);
    expect(cache.get("poll-cursor-cccccccccccc")?.position).toBe(21_000_020n);
    // Held now: the same answer from the poll statement alone, even with the row gone.
    await api.db.deleteFrom("activity_cursor").where("id", "=", "poll-cursor-cccccccccccc").execute();
    const again = await storeOf(cache).readPollAt("poll-cursor-cccccccccccc", OWNER, now, 10);
    expect({ blocks: again?.blocks, changes: again?.changes }).toEqual({ blocks: read?.blocks, changes: read?.changes });
  });

  it("answers nothing for a foreign, expired, unknown or malformed cursor, held or not", async () => {
    const then = new Date("2026-11-01T00:00:00.000Z");
    await storeOf().storeDerived({ id: "poll-cursor-dddddddddddd", owner: OWNER, position: 1n, trail: [] }, then);
    const other = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";
    const inTime = new Date("2026-11-02T00:00:00.000Z");
    const expired = new Date("2026-11-16T00:00:01.000Z");
    for (const cache of [undefined, new CursorCache(10)]) {
      expect(await storeOf(cache).readPollAt("poll-cursor-dddddddddddd", other, inTime, 10)).toBeUndefined();
      expect(await storeOf(cache).readPollAt("poll-cursor-dddddddddddd", OWNER, expired, 10)).toBeUndefined();
      expect(await storeOf(cache).readPollAt("poll-cursor-eeeeeeeeeeee", OWNER, inTime, 10)).toBeUndefined();
      expect(await storeOf(cache).readPollAt("short", OWNER, inTime, 10)).toBeUndefined();
      expect((await storeOf(cache).readPollAt("poll-cursor-dddddddddddd", OWNER, inTime, 10))?.cursor.createdAt).toEqual(then);
    }
  });

  it("answers polls asked together each its own cursor and changes, held or not, as when asked alone", async () => {
    const second = "0x90f79bf6eb2c4f870365e785982e1f101e93b906";
    for (const [block, owner] of [
      [40, OWNER],
      [41, second],
      [42, OWNER],
      [43, second],
      [44, OWNER],
    ] as const)
      await insertChange(sql, VIEWS, { block, logIndex: 1, owner, branch: "a", kind: "vault.shares", vault: owner, data: { delta: String(block) } });
    const now = new Date("2026-11-27T10:00:00.000Z");
    const cursors = [
      { id: "together-cursor-aaaaaaaaaa", owner: OWNER, position: 39_000_000n, trail: [] },
      { id: "together-cursor-bbbbbbbbbb", owner: OWNER, position: 42_000_010n, trail: [{ number: 42n, hash: branchHash(42, "a") }] },
      { id: "together-cursor-cccccccccc", owner: second, position: 39_000_000n, trail: [] },
    ];
    for (const c of cursors) await storeOf().storeDerived(c, now);
    // [cursor, owner, limit]: each cursor, one with a small limit, one asked for by another owner, one unknown.
    const asks: [string, string, number][] = [
      [cursors[0]!.id, OWNER, 10],
      [cursors[1]!.id, OWNER, 10],
      [cursors[2]!.id, second, 10],
      [cursors[0]!.id, OWNER, 2],
      [cursors[2]!.id, OWNER, 10],
      ["together-cursor-unknown000", OWNER, 10],
    ];
    const shown = (read: Awaited<ReturnType<CursorStore["readPollAt"]>>) =>
      read && { position: read.cursor.position, blocks: read.blocks.map((b) => b.number), changes: read.changes.map((c) => c.position) };
    for (const held of [false, true]) {
      const cache = () => {
        if (!held) return undefined;
        const c = new CursorCache(10);
        for (const k of cursors) c.remember({ ...k, createdAt: now });
        return c;
      };
      const alone = [];
      for (const [id, owner, limit] of asks) alone.push(shown(await storeOf(cache()).readPollAt(id, owner, now, limit)));
      const store = storeOf(cache());
      const together = (await Promise.all(asks.map(([id, owner, limit]) => store.readPollAt(id, owner, now, limit)))).map(shown);
      expect(together).toEqual(alone);
      expect(alone).toEqual([
        { position: 39_000_000n, blocks: [], changes: [40_000_010n, 42_000_010n, 44_000_010n] },
        { position: 42_000_010n, blocks: [42n], changes: [44_000_010n] },
        { position: 39_000_000n, blocks: [], changes: [41_000_010n, 43_000_010n] },
        { position: 39_000_000n, blocks: [], changes: [40_000_010n, 42_000_010n] },
        undefined,
        undefined,
      ]);
    }
  });

  it("reads the cursor on its own when the projections are in another database than the cursors", async () => {
    const other = await createTestDatabase();
    const otherSql = postgres(other.url, { max: 1, onnotice: () => {} });
    const otherReads = createProjectionsDb({ sql: createProjectionsPostgres({ url: other.url, max: 1 }), viewsSchema: VIEWS });
    try {
      await createActivityView(otherSql, VIEWS);
      await insertChange(otherSql, VIEWS, { block: 30, logIndex: 1, owner: OWNER, branch: "a", kind: "vault.shares", vault: OWNER, data: { delta: "1" } });
      const now = new Date("2026-11-27T10:00:00.000Z");
      await storeOf().storeDerived({ id: "poll-cursor-ffffffffffff", owner: OWNER, position: 29_000_000n, trail: [] }, now);
      const read = await storeOf(new CursorCache(10), api.db, otherReads).readPollAt("poll-cursor-ffffffffffff", OWNER, now, 10);
      expect(read?.cursor.position).toBe(29_000_000n);
      expect(read?.changes.map((c) => c.position)).toEqual([30_000_010n]);
      expect(await storeOf(undefined, api.db, otherReads).readPollAt("poll-cursor-gggggggggggg", OWNER, now, 10)).toBeUndefined();
    } finally {
      await Promise.allSettled([otherReads.destroy(), otherSql.end()]);
      await other.drop();
    }
  });
});
