// The activity feed over an activity log this test writes itself (a schema shaped like the
// indexer's views), so every case is exact: baselines, paging, idempotent retries, expiry, owner
// binding, and what an agent sees when reorgs replace blocks it was already given.
import type { Kysely } from "kysely";
import postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sweepExpiredCursors } from "../../../adapters/db/cursors.js";
import { CURSOR_TTL_MS } from "../../../contract/accounts.js";
import { extendTrail, REORG_WINDOW_BLOCKS, resumePoint } from "../../../usecases/activity/cursors.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../../adapters/db/projections.js";
import { lastPositionOf } from "../../../domain/activity-position.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../../helpers/openapi-validate.js";
import { json, testApp, useApiFixture } from "../../api/support.js";
import { branchHash as hash, createActivityView, insertChange } from "../../helpers/activity-view.js";

const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const VAULT = "0xca5747a82dd5e18de7e5e47eb42e3d5465b06cb2";
const VIEWS = "fake_views";

const api = useApiFixture();
let reads: Kysely<Projections>;
let sql: postgres.Sql;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;

/** One change of `owner` at (block, logIndex) on `branch`. */
const change = (block: number, logIndex: number, branch = "a", owner = OWNER, kind = "vault.shares") =>
  insertChange(sql, VIEWS, {
    block,
    logIndex,
    owner,
    branch,
    kind,
    vault: VAULT,
    data: { delta: "1000", counterparty: "0x0000000000000000000000000000000000000000", branch },
  });

/** What Ponder does in a reorg: the rows of blocks from `fromBlock` on go away. */
const dropFrom = (fromBlock: number) => sql`delete from ${sql(VIEWS)}.activity where block_number >= ${fromBlock}`;

const feed = (cursor?: string, extra = "", owner = OWNER) =>
  t.app.request(
    `/v1/agent/accounts/${owner}/activity${cursor === undefined ? (extra ? `?${extra}` : "") : `?cursor=${encodeURIComponent(cursor)}${extra ? `&${extra}` : ""}`}`,
  );

async function poll(cursor?: string, extra = "", owner = OWNER) {
  const response = await feed(cursor, extra, owner);
  expect(response.status, await response.clone().text()).toBe(200);
  const body = await json(response);
  // Every answer is exactly what the OpenAPI document describes (no field more or less).
  expect(validator.errors("get", `/v1/agent/accounts/${owner}/activity`, 200, body)).toEqual([]);
  return body.data as {
    cursor: string;
    since: string;
    now: string;
    after: string;
    more: boolean;
    reorged: boolean;
    changes: {
      id: string;
      kind: string;
      block: number;
      blockHash: string;
      subject: string;
      contract: string;
      data: Record<string, unknown>;
      time: string;
      logIndex: number;
      txHash: string;
    }[];
  };
}

beforeAll(async () => {
  sql = postgres(api.database.url, { max: 2, onnotice: () => {} });
  await createActivityView(sql, VIEWS);
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: api.database.url, max: 2 }), viewsSchema: VIEWS });
  t = testApp({ db: api.db, redis: api.redis, reads, rateLimit: { keyPrefix: `${api.prefix}:rl` } });
  validator = responseValidator(await fetchOpenApi(t.app));
});

beforeEach(async () => {
  await sql`delete from ${sql(VIEWS)}.activity`;
});

afterAll(async () => {
  await Promise.allSettled([reads?.destroy(), sql?.end()]);
});

describe("the trail (pure)", () => {
  const b = (number: number, branch = "a") => ({ number: BigInt(number), hash: hash(number, branch) });

  it("keeps one entry per block, newest first, within the reorg window of the newest", () => {
    const far = Number(REORG_WINDOW_BLOCKS) + 200;
    expect(extendTrail([b(100), b(90)], [b(105), b(100), b(101)])).toEqual([b(105), b(101), b(100), b(90)]);
    expect(extendTrail([b(100)], [b(far)])).toEqual([b(far)]);
    expect(extendTrail([], [])).toEqual([]);
  });

  it("resumes at the cursor when its newest block is canonical, after the last common block when not", () => {
    const cursor = { position: 105_000_020n, trail: [b(105), b(101), b(100)] };
    expect(resumePoint(cursor, [b(105), b(101), b(100)])).toEqual({ after: 105_000_020n, trail: cursor.trail, reorged: false });
    expect(resumePoint(cursor, [b(104, "b"), b(101), b(100)])).toEqual({ after: lastPositionOf(101n), trail: [b(101), b(100)], reorged: true });
    expect(resumePoint(cursor, [b(105, "b"), b(100)])).toEqual({ after: lastPositionOf(100n), trail: [b(100)], reorged: true });
    // Nothing given is canonical: back to the start of the reorg window (everything before it is final).
    expect(resumePoint(cursor, [b(103, "b")])).toEqual({ after: lastPositionOf(105n - REORG_WINDOW_BLOCKS), trail: [], reorged: true });
    expect(resumePoint({ position: 0n, trail: [] }, [])).toEqual({ after: 0n, trail: [], reorged: false });
  });
});

describe("GET /v1/agent/accounts/{owner}/activity", () => {
  it("a baseline has no changes and a cursor at the owner's newest change; polls give what follows, once, in order", async () => {
    await change(100, 1);
    await change(100, 3);
    const baseline = await poll();
    expect(baseline).toMatchObject({ changes: [], more: false, reorged: false, after: "100000030" });
    expect(baseline.cursor).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(baseline.since).toBe(baseline.now);
    expect(baseline.now).toBe(t.clock.now().toISOString());

    expect((await poll(baseline.cursor)).changes).toEqual([]);
    const ids = [await change(101, 0), await change(101, 2, "a", OTHER), await change(103, 5)];
    const next = await poll(baseline.cursor);
    expect(next.changes.map((c) => c.id)).toEqual([ids[0], ids[2]]);
    expect(next).toMatchObject({ after: "100000030", more: false, reorged: false, since: baseline.now });
    expect(next.changes[0]).toEqual({
      id: "101000000",
      kind: "vault.shares",
      subject: "0xca5747a82dD5e18dE7E5E47Eb42E3D5465b06cb2",
      contract: "0xca5747a82dD5e18dE7E5E47Eb42E3D5465b06cb2",
      data: { delta: "1000", counterparty: "0x0000000000000000000000000000000000000000", branch: "a" },
      txHash: hash(10100, "a"),
      block: 101,
      blockHash: hash(101, "a"),
      logIndex: 0,
      time: new Date((1_700_000_000 + 202) * 1000).toISOString(),
    });
    expect((await poll(next.cursor)).changes).toEqual([]);
  });

  it("1,000 baselines for one owner at one position leave at most one new cursor row (issue 32)", async () => {
    await change(100, 30);
    const rows = async () =>
      Number(
        (
          await api.db
            .selectFrom("activity_cursor")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("owner", "=", OWNER.toLowerCase())
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await rows();
    const cursors = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const response = await feed();
      expect(response.status).toBe(200);
      cursors.add((await json(response)).data.cursor);
    }
    expect(cursors.size).toBe(1);
    expect((await rows()) - before).toBeLessThanOrEqual(1);
    // A new position (or the next day) gives a new baseline; the reused one still polls.
    await change(101, 5);
    const moved = await poll();
    expect(cursors.has(moved.cursor)).toBe(false);
    expect((await poll([...cursors][0])).changes.map((c) => c.id)).toEqual(["101000050"]);
  });

  it("an owner with no changes gets a baseline at 0, and then its first changes", async () => {
    const baseline = await poll(undefined, "", OTHER);
    expect(baseline).toMatchObject({ changes: [], after: "0" });
    await change(7, 1, "a", OTHER);
    expect((await poll(baseline.cursor, "", OTHER)).changes.map((c) => c.id)).toEqual(["7000010"]);
  });

  it("pages: at most `limit` per answer with more: true, the rest at once with the new cursor", async () => {
    const baseline = await poll();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await change(200 + Math.floor(i / 2), i));
    const seen: string[] = [];
    let cursor = baseline.cursor;
    const mores: boolean[] = [];
    for (let call = 0; call < 5; call++) {
      const page = await poll(cursor, "limit=3");
      seen.push(...page.changes.map((c) => c.id));
      mores.push(page.more);
      cursor = page.cursor;
      if (!page.more) break;
    }
    expect(seen).toEqual(ids);
    expect(mores).toEqual([true, true, false]);
  });

  it("a retried poll answers the same changes and the same cursor; the old cursor stays valid", async () => {
    const baseline = await poll();
    await change(300, 1);
    await change(301, 1);
    const first = await poll(baseline.cursor);
    const again = await poll(baseline.cursor);
    expect(again.changes).toEqual(first.changes);
    expect(again.cursor).toBe(first.cursor);
    expect(again.since).toBe(first.since);
    // Moving on does not spend the old cursor; a new change shows to both, de-duplicable by id.
    await change(302, 1);
    expect((await poll(first.cursor)).changes.map((c) => c.id)).toEqual(["302000010"]);
    expect((await poll(baseline.cursor)).changes.map((c) => c.id)).toEqual(["300000010", "301000010", "302000010"]);
  });

  it("answers 404 CURSOR_NOT_FOUND for unknown, foreign and expired cursors; 400 for an empty or overlong one", async () => {
    await change(400, 1);
    const baseline = await poll();
    for (const cursor of ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "garbage", "ünïcode-cürsor", "../../etc/passwd", "' or 1=1 --"]) {
      const response = await feed(cursor);
      expect(response.status, cursor).toBe(404);
      expect(await json(response)).toEqual({ error: "Unknown or expired cursor", code: "CURSOR_NOT_FOUND" });
    }
    // Another owner's cursor is unknown to this owner.
    const foreign = await feed(baseline.cursor, "", OTHER);
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).code).toBe("CURSOR_NOT_FOUND");
    for (const cursor of ["", "x".repeat(129)]) {
      const response = await feed(cursor);
      expect(response.status).toBe(400);
      expect((await json(response)).code).toBe("INVALID_REQUEST");
    }
    // Valid for 14 days, then gone.
    t.clock.advance(CURSOR_TTL_MS - 1000);
    expect((await feed(baseline.cursor)).status).toBe(200);
    t.clock.advance(2000);
    const expired = await feed(baseline.cursor);
    expect(expired.status).toBe(404);
    expect((await json(expired)).code).toBe("CURSOR_NOT_FOUND");
    // ...and swept.
    expect(await sweepExpiredCursors(api.db, t.clock.now())).toBeGreaterThan(0);
    expect(await api.db.selectFrom("activity_cursor").select("id").where("id", "=", baseline.cursor).executeTakeFirst()).toBeUndefined();
    expect((await poll()).changes).toEqual([]);
  });

  it("a reorg of blocks already given answers reorged: true from the last common block, then carries on", async () => {
    await change(500, 1);
    const baseline = await poll();
    await change(501, 1);
    await change(505, 1);
    await change(505, 2);
    const given = await poll(baseline.cursor);
    expect(given.changes.map((c) => c.id)).toEqual(["501000010", "505000010", "505000020"]);

    // Blocks from 503 on are replaced: 505 now holds other changes, and 504 has one.
    await dropFrom(503);
    await change(504, 3, "b");
    await change(505, 1, "b", OWNER, "vault.deposit.settled");
    const reorged = await poll(given.cursor);
    expect(reorged).toMatchObject({ reorged: true, after: lastPositionOf(501n).toString(), more: false });
    expect(reorged.changes.map((c) => [c.id, c.blockHash, c.kind])).toEqual([
      ["504000030", hash(504, "b"), "vault.shares"],
      ["505000010", hash(505, "b"), "vault.deposit.settled"],
    ]);
    // The same cursor again: the same answer. The new one: nothing new, no reorg.
    expect(await poll(given.cursor)).toEqual(reorged);
    const calm = await poll(reorged.cursor);
    expect(calm).toMatchObject({ reorged: false, changes: [] });

    // A deeper reorg that also takes block 501: back to 500, the last block still common.
    await dropFrom(501);
    await change(502, 0, "c");
    const deeper = await poll(calm.cursor);
    expect(deeper).toMatchObject({ reorged: true, after: lastPositionOf(500n).toString() });
    expect(deeper.changes.map((c) => c.id)).toEqual(["502000000"]);

    // A reorg before any given block (the baseline's own block replaced): from the reorg window's start.
    await dropFrom(500);
    await change(500, 4, "d");
    const rebased = await poll(baseline.cursor);
    expect(rebased).toMatchObject({ reorged: true, after: lastPositionOf(500n - REORG_WINDOW_BLOCKS).toString() });
    expect(rebased.changes.map((c) => c.id)).toEqual(["500000040"]);
  });

  it("a reorg that only removes changes answers reorged with nothing, and the new cursor sees the new branch", async () => {
    await change(600, 1);
    const baseline = await poll();
    await change(601, 1);
    const given = await poll(baseline.cursor);
    expect(given.changes.map((c) => c.id)).toEqual(["601000010"]);
    await dropFrom(601);
    const emptied = await poll(given.cursor);
    expect(emptied).toMatchObject({ reorged: true, after: lastPositionOf(600n).toString(), changes: [] });
    await change(602, 2, "b");
    const next = await poll(emptied.cursor);
    expect(next).toMatchObject({ reorged: false });
    expect(next.changes.map((c) => c.id)).toEqual(["602000020"]);
  });
});

describe("the long poll in the metrics", () => {
  it("is timed in http_long_poll_duration_seconds, apart from the other requests' latency, and counted as a request", async () => {
    const token = "metrics-token-for-activity-0123";
    const m = testApp({ db: api.db, redis: api.redis, reads, rateLimit: { keyPrefix: `${api.prefix}:rl-metrics` }, metricsToken: token });
    const url = `/v1/agent/accounts/${OWNER}/activity`;
    const baseline = await json(await m.app.request(url));
    expect((await m.app.request(`${url}?cursor=${encodeURIComponent(baseline.data.cursor)}&waitMs=50`)).status).toBe(200);
    const text = await (await m.app.request("/metrics", { headers: { authorization: `Bearer ${token}` } })).text();
    const labels = 'method="GET",route="/v1/agent/accounts/:owner/activity",status="200"';
    expect(text).toContain(`http_long_poll_duration_seconds_count{${labels}} 1`);
    expect(text).toContain(`http_request_duration_seconds_count{${labels}} 1`);
    expect(text).toContain(`http_requests_total{${labels}} 2`);
  });
});
