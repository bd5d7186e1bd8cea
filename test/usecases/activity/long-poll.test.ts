// Long-poll activity (GET .../activity?cursor=&waitMs=) over an activity log this test writes itself
// (a schema shaped like the indexer's views, as test/usecases/activity/feed.test.ts does): a waiting
// request answers as soon as its owner's change is committed, only its owner's, or at the deadline
// with no changes; a revert wakes it with `reorged`; waiting requests hold no connection.
import type { Kysely } from "kysely";
import postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { json, testApp, useApiFixture } from "../../api/support.js";
import { createActivityView, insertChange } from "../../helpers/activity-view.js";
import { fetchOpenApi, responseValidator, type ResponseValidator } from "../../helpers/openapi-validate.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../../adapters/db/projections.js";
import { ActivityWaker } from "../../../usecases/activity/waker.js";

const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const VAULT = "0xca5747a82dd5e18de7e5e47eb42e3d5465b06cb2";
const VIEWS = "fake_views";
const READS_APP = "long-poll-test-reads";

const api = useApiFixture();
let reads: Kysely<Projections>;
let sql: postgres.Sql;
let waker: ActivityWaker;
let t: ReturnType<typeof testApp>;
let validator: ResponseValidator;

const change = (block: number, logIndex: number, owner = OWNER, branch = "a") =>
  insertChange(sql, VIEWS, { block, logIndex, owner, branch, kind: "vault.shares", vault: VAULT, data: { delta: "1000" } });

type Activity = { cursor: string; after: string; more: boolean; reorged: boolean; changes: { id: string; blockHash: string }[] };

const path = (owner: string, query: string) => `/v1/agent/accounts/${owner}/activity?${query}`;

/** GET the feed; answers the data and the milliseconds it took. */
async function get(owner: string, query: string): Promise<{ data: Activity; ms: number }> {
  const started = performance.now();
  const response = await t.app.request(path(owner, query));
  const ms = performance.now() - started;
  expect(response.status, await response.clone().text()).toBe(200);
  const body = await json(response);
  expect(validator.errors("get", path(owner, query), 200, body)).toEqual([]);
  return { data: body.data as Activity, ms };
}

const baseline = async (owner = OWNER) => (await get(owner, "")).data.cursor;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  sql = postgres(api.database.url, { max: 2, onnotice: () => {} });
  await createActivityView(sql, VIEWS);
  await sql`create index on ${sql(VIEWS)}.activity (position)`;
  const readsSql = postgres(api.database.url, { max: 3, onnotice: () => {}, connection: { application_name: READS_APP } });
  reads = createProjectionsDb({ sql: readsSql, viewsSchema: VIEWS });
  void createProjectionsPostgres; // the app's own pool maker; here a named pool, to count its connections
  waker = new ActivityWaker({ reads, tickMs: 50, idleStopMs: 200 });
  t = testApp({ db: api.db, redis: api.redis, reads, activityWaker: waker, rateLimit: { keyPrefix: `${api.prefix}:rl` } });
  validator = responseValidator(await fetchOpenApi(t.app));
});

beforeEach(async () => {
  await sql`delete from ${sql(VIEWS)}.activity`;
});

afterAll(async () => {
  waker?.stop();
  await Promise.allSettled([reads?.destroy(), sql?.end()]);
});

describe("long-poll activity", () => {
  it("documents waitMs with its bound in the OpenAPI document, and refuses more than 30,000 ms", async () => {
    const doc = await json(await t.app.request("/v1/agent/openapi.json"));
    const param = doc.paths["/v1/agent/accounts/{owner}/activity"].get.parameters.find((p: { name: string }) => p.name === "waitMs");
    expect(param.schema).toMatchObject({ minimum: 0, maximum: 30000, default: 0 });
    expect(param.description).toMatch(/0-30000/);
    const cursor = await baseline();
    const response = await t.app.request(path(OWNER, `cursor=${cursor}&waitMs=30001`));
    expect(response.status).toBe(400);
    expect((await json(response)).code).toBe("INVALID_REQUEST");
  });

  it("waitMs=0 (the default) and a baseline answer at once", async () => {
    const cursor = await baseline();
    expect((await get(OWNER, `cursor=${cursor}`)).ms).toBeLessThan(500);
    expect((await get(OWNER, `cursor=${cursor}&waitMs=0`)).ms).toBeLessThan(500);
    expect((await get(OWNER, "waitMs=5000")).ms).toBeLessThan(500);
  });

  it("a change already there answers at once, without waiting", async () => {
    const cursor = await baseline();
    const id = await change(10, 1);
    const { data, ms } = await get(OWNER, `cursor=${cursor}&waitMs=5000`);
    expect(data.changes.map((c) => c.id)).toEqual([id]);
    expect(ms).toBeLessThan(500);
  });

  it("with nothing new, answers no changes at the deadline", async () => {
    const cursor = await baseline();
    const { data, ms } = await get(OWNER, `cursor=${cursor}&waitMs=700`);
    expect(data).toMatchObject({ changes: [], more: false, reorged: false });
    expect(ms).toBeGreaterThanOrEqual(690);
    expect(ms).toBeLessThan(2_000);
    // The answer's cursor is a cursor as any: it polls on.
    const id = await change(11, 1);
    expect((await get(OWNER, `cursor=${data.cursor}`)).data.changes.map((c) => c.id)).toEqual([id]);
  });

  it("wakes exactly the owner whose change is indexed, soon after its commit", async () => {
    await change(5, 1, OWNER);
    const [mine, other] = [await baseline(OWNER), await baseline(OTHER)];
    const mineAnswer = get(OWNER, `cursor=${mine}&waitMs=10000`);
    const otherStarted = performance.now();
    let otherDone: number | undefined;
    const otherAnswer = get(OTHER, `cursor=${other}&waitMs=1500`).then((r) => ((otherDone = performance.now()), r));
    await sleep(300);
    expect(waker.stats().waiters).toBe(2);
    const committed = performance.now();
    const id = await change(20, 3, OWNER);
    const { data } = await mineAnswer;
    const wakeMs = performance.now() - committed;
    expect(data.changes.map((c) => c.id)).toEqual([id]);
    expect(wakeMs).toBeLessThan(500);
    // The other owner's request is still waiting, and answers nothing at its deadline.
    expect(otherDone).toBeUndefined();
    const o = await otherAnswer;
    expect(o.data.changes).toEqual([]);
    expect(otherDone! - otherStarted).toBeGreaterThanOrEqual(1_490);
  });

  it("a revert of changes already given wakes the waiter with reorged", async () => {
    const cursor = await baseline();
    await change(30, 1);
    const first = await get(OWNER, `cursor=${cursor}`);
    expect(first.data.changes).toHaveLength(1);
    const waiting = get(OWNER, `cursor=${first.data.cursor}&waitMs=10000`);
    await sleep(300);
    const reverted = performance.now();
    await sql`delete from ${sql(VIEWS)}.activity where block_number >= 30`;
    const { data } = await waiting;
    expect(performance.now() - reverted).toBeLessThan(1_000);
    expect(data.reorged).toBe(true);
  });

  it("200 waiting requests hold no database connection each, and all leave the waker", async () => {
    const owners = Array.from({ length: 200 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);
    const cursors = await Promise.all(owners.map((o) => baseline(o)));
    // A deadline long enough that no waiter gives up while a loaded machine sets the others up.
    const answers = owners.map((o, i) => get(o, `cursor=${cursors[i]}&waitMs=10000`));
    for (const until = Date.now() + 8_000; waker.stats().waiters < 200 && Date.now() < until; ) await sleep(50);
    expect(waker.stats().waiters).toBe(200);
    const [row] = await sql<{ count: number }[]>`
      select count(*)::int as count from pg_stat_activity where datname = ${api.database.name} and application_name = ${READS_APP}`;
    expect(row!.count).toBeLessThanOrEqual(3); // the reads pool's size, not one per request
    const target = owners[17]!;
    const changedAt = performance.now();
    const id = await change(40, 1, target);
    const woken = await answers[17]!;
    expect(performance.now() - changedAt).toBeLessThan(2_000);
    expect(woken.data.changes.map((c) => c.id)).toEqual([id]);
    await sleep(300);
    expect(waker.stats().waiters).toBe(199); // nobody else was woken
    const done = await Promise.all(answers);
    expect(done.filter((a) => a.data.changes.length > 0).map((a) => a.data.changes[0]!.id)).toEqual([id]);
    expect(waker.stats().waiters).toBe(0);
  }, 60_000);
});
