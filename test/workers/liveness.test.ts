// No pass can hang (issue 51), over real BullMQ workers on the real Redis (a key prefix of the test's own)
// and a real Postgres: a processor that never settles fails at its deadline and the next pass runs; a
// grading pass whose transaction waits on a lock past its deadline is rolled back, its connection given
// back, and the next pass grades; the worker's /metrics carries the grading lag, each queue's oldest active
// job and the jobs failed at their deadline; its /ready is 503 while grading lags over 10 minutes.
import type { Server } from "node:http";
import { type Job, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { type Kysely, sql } from "kysely";
import postgres from "postgres";
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../adapters/db/api-schema.js";
import { createDb, migrateToLatest } from "../../adapters/db/connect.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { queueMetrics, type QueueMetrics } from "../../adapters/queue/metrics.js";
import { buildOrderAction } from "../../domain/bundles/index.js";
import { callKey } from "../../domain/grading/index.js";
import { gradingLagSeconds } from "../../usecases/report-card/grading-lag.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../adapters/config.js";
import { BACKTEST_QUEUE, SCAN_QUEUE } from "../../usecases/backtest-runs/jobs.js";
import { AGGREGATOR_QUEUE } from "../../usecases/prepare/aggregator-queue.js";
import { PREPARE_QUEUE } from "../../usecases/prepare/job.js";
import { GRADING_QUEUE, PURGE_QUEUE, QUEUE_NAMES } from "../../usecases/queues.js";
import { JOB_DEADLINES_MS, withDeadline } from "../../workers/deadline.js";
import { startWorkerMetrics } from "../../workers/metrics.js";
import { gradingProcessor } from "../../workers/processors/grading.js";
import { capturingLogger, connectRedis, createTestDatabase, deleteKeys, randomPrefix, REDIS_URL, type TestDatabase } from "../api/support.js";
import { freePort } from "../helpers/stack.js";
import { createProjectionTables, executedCallRow } from "../helpers/projection-tables.js";
import { storeGradingPass } from "../../adapters/db/grading.js";

const VIEWS = "liveness_views";
const APP = "liveness-grading";
const hook = "0x5555555555555555555555555555555555555555" as Address;
const prefix = randomPrefix();
const log = capturingLogger();
const now = () => new Date();

let database: TestDatabase;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let raw: postgres.Sql;
let redis: Redis;
let connection: Redis;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  // The pool of the grading pass, named so pg_stat_activity shows its sessions.
  db = createDb({ url: database.url, max: 2, applicationName: APP });
  await migrateToLatest(db);
  raw = postgres(database.url, { max: 2, onnotice: () => {} });
  await createProjectionTables(raw, VIEWS);
  reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: database.url, max: 2 }), viewsSchema: VIEWS });
  redis = await connectRedis();
  connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  connection?.disconnect();
  await deleteKeys(redis, prefix);
  await redis?.quit();
  await Promise.allSettled([db?.destroy(), reads?.destroy(), raw?.end()]);
  await database?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

let nextId = 0;
/** An owner's order claim filed `filedAgo` ms ago and mined `minedAgo` ms ago (its block's time). */
async function fileAndMine(filedAgo: number, minedAgo: number): Promise<{ owner: string; filing: string; tx: string }> {
  const owner = getAddress(`0x${(0xb0 + nextId++).toString(16).padStart(40, "0")}`).toLowerCase();
  const claim = buildOrderAction({ owner: owner as Address, hook, action: "claimBoth", id: BigInt(100 + nextId) });
  const filing = `filing-${nextId++}`;
  await db
    .insertInto("filing")
    .values({
      id: filing,
      owner,
      agent_tag: "agent",
      kind: claim.kind,
      steps: claim.steps.map((s) => ({ to: s.to, data: s.data, value: "0" })),
      created_at: new Date(Date.now() - filedAgo),
      call_key: callKey(claim.steps),
      owner_session: false,
    })
    .execute();
  const tx = `0x${(nextId++).toString(16).padStart(64, "0")}`;
  const step = claim.steps[0]!;
  const row = executedCallRow({
    txHash: tx,
    from: owner,
    to: step.to,
    input: step.data,
    blockNumber: nextId,
    timestamp: Math.floor((Date.now() - minedAgo) / 1000),
  });
  await raw`insert into ${raw(VIEWS)}.executed_call ${raw(row)}`;
  return { owner, filing, tx };
}

/** A worker of `queue` (the test's prefix) running `processor`, one job at a time, closed after the file. */
function workerOf(queue: string, processor: (job: Job) => Promise<unknown>): Worker {
  const worker = new Worker(queue, processor, { connection, prefix, concurrency: 1 });
  closers.push(() => worker.close(true));
  return worker;
}
function queueOf(name: string): Queue {
  const queue = new Queue(name, { connection: { url: REDIS_URL }, prefix });
  closers.push(() => queue.close());
  return queue;
}

/** The grading pool's sessions as Postgres sees them. */
const sessions = () =>
  raw<{ state: string; xact: boolean; wait: string | null }[]>`
    select state, xact_start is not null as xact, wait_event_type as wait from pg_stat_activity where application_name = ${APP}`;

async function startMetrics(
  workers: Worker[],
  queues: QueueMetrics,
  gradingLag = () => gradingLagSeconds({ db, reads, now }),
): Promise<{ base: string; server: Server }> {
  const port = await freePort();
  const server = startWorkerMetrics({
    workers,
    queueText: queues.text,
    oldestActive: queues.oldestActiveSeconds,
    deadlinesMs: { grading: 1500 },
    gradingLag,
    redisReady: () => true,
    host: "127.0.0.1",
    port,
    logger: log.logger,
  });
  closers.push(async () => server.close());
  await new Promise((resolve) => server.once("listening", resolve));
  return { base: `http://127.0.0.1:${port}`, server };
}
const sample = (text: string, name: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
};

describe("job deadlines", () => {
  it("every queue's worker in workers/main.ts runs its processor under its own queue's deadline", () => {
    const main = readFileSync(join(repoRoot, "workers/main.ts"), "utf8");
    const names: Record<string, string> = { AGGREGATOR_QUEUE, PREPARE_QUEUE, BACKTEST_QUEUE, SCAN_QUEUE, GRADING_QUEUE, PURGE_QUEUE };
    // One place makes a Worker, and it runs the processor under the deadline of the queue it is given.
    expect(main.match(/new Worker\(/g)).toHaveLength(1);
    expect(main).toMatch(/new Worker\(queue, withDeadline\(queue, JOB_DEADLINES_MS\[queue\], processor,/);
    const worked = [...main.matchAll(/^(?:const \w+ = )?work\(\s*(\w+),/gm)].map((m) => names[m[1]!]);
    expect(worked.sort()).toEqual([...QUEUE_NAMES].sort());
    for (const queue of QUEUE_NAMES) expect(JOB_DEADLINES_MS[queue]).toBeGreaterThan(0);
  });

  it("a processor whose promise never settles fails at its deadline, and the next pass of its scheduler runs", async () => {
    let calls = 0;
    workerOf(
      "never",
      withDeadline(
        "never",
        500,
        async () => {
          calls += 1;
          if (calls === 1) await new Promise(() => {});
          return { pass: calls };
        },
        { logger: log.logger },
      ),
    );
    const queue = queueOf("never");
    await queue.upsertJobScheduler("never", { every: 1000 }, { name: "pass", data: {} });
    const [done] = await until(
      () => queue.getCompleted(),
      (jobs) => jobs.length > 0,
    );
    expect(done!.returnvalue).toEqual({ pass: 2 });
    const [failed] = await queue.getFailed();
    expect(failed!.failedReason).toMatch(
      /^never job \S+ \(pass\) passed its deadline of 0\.5 s, waiting on its own code \(no connection or statement awaited\)$/,
    );
    expect(log.lines.some((l) => l.msg === "job passed its deadline" && l.queue === "never")).toBe(true);
    await queue.removeJobScheduler("never");
  });

  it("a grading pass stuck on a lock in its transaction is rolled back at its deadline, its connection given back, and the next pass grades; the metrics show it", async () => {
    const { filing, tx } = await fileAndMine(90_000, 60_000);
    // Another session keeps writers out of the report actions (readers pass): the pass's transaction waits on it.
    const lockPool = postgres(database.url, { max: 1, onnotice: () => {} });
    closers.push(() => lockPool.end({ timeout: 1 }));
    const locker = await lockPool.reserve();
    await locker`begin`;
    await locker`lock table agent_api.report_action in exclusive mode`;

    const worker = workerOf("grading", withDeadline("grading", 1500, gradingProcessor({ db, reads, now, logger: log.logger }), { logger: log.logger }));
    const queues = queueMetrics({ redisUrl: REDIS_URL, prefix, queues: ["grading"] });
    closers.push(() => queues.close());
    const { base } = await startMetrics([worker], queues);
    const queue = queueOf("grading");
    await queue.add("grade", {});

    // Stuck: the pass's session waits on the lock inside its transaction; the lag and the active job's age show it.
    await until(sessions, (rows) => rows.some((r) => r.xact && r.wait === "Lock"));
    await sleep(500);
    const stuck = await (await fetch(`${base}/metrics`)).text();
    expect(sample(stuck, "agent_grading_lag_seconds")).toBeGreaterThanOrEqual(59);
    expect(sample(stuck, 'agent_job_oldest_active_seconds{queue="grading"}')).toBeGreaterThan(0.4);
    expect(sample(stuck, 'agent_job_deadline_seconds{queue="grading"}')).toBe(1.5);

    const [failed] = await until(
      () => queue.getFailed(),
      (jobs) => jobs.length > 0,
    );
    expect(failed!.failedReason).toMatch(
      /^grading job \S+ \(grade\) passed its deadline of 1\.5 s, waiting on the statement "insert into "agent_api"\."report_action".*" for \d\.\d s$/,
    );
    // Rolled back and given back while the lock is still held: no session of the pass's pool is left in a transaction.
    await until(sessions, (rows) => rows.every((r) => !r.xact));
    expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    await locker`commit`;
    locker.release();
    // The next pass matches the call and credits it.
    await queue.add("grade", {});
    await until(
      () => queue.getCompleted(),
      (jobs) => jobs.length > 0,
    );
    expect((await db.selectFrom("report_action").select(["tx_hash"]).where("filing_id", "=", filing).executeTakeFirst())?.tx_hash).toBe(tx);
    await sleep(5100); // the lag is read at most every 5 s
    const after = await (await fetch(`${base}/metrics`)).text();
    expect(sample(after, "agent_grading_lag_seconds")).toBe(0);
    expect(sample(after, 'agent_job_deadline_exceeded_total{queue="grading"}')).toBe(1);
    expect(sample(after, 'agent_job_oldest_active_seconds{queue="grading"}')).toBe(0);
  });
});

describe("the worker's /ready and the grading lag", () => {
  it("is 503 with the reason while a call the last pass did not cover has waited over 10 minutes, 200 once a pass covers it", async () => {
    // The last whole pass started 11 minutes ago; a call mined 10.5 minutes ago has waited since.
    const passAt = Date.now() - 11 * 60_000;
    await storeGradingPass(db, { startedAt: new Date(passAt), coveredTo: Math.floor(passAt / 1000) });
    const { owner } = await fileAndMine(11 * 60_000, 10.5 * 60_000);
    const worker = workerOf("ready-probe", async () => ({}));
    const queues = queueMetrics({ redisUrl: REDIS_URL, prefix, queues: ["ready-probe"] });
    closers.push(() => queues.close());
    const { base } = await startMetrics([worker], queues);
    const late = await fetch(`${base}/ready`);
    expect(late.status).toBe(503);
    const body = (await late.json()) as { status: string; reason: string; gradingLagSeconds: number };
    expect(body.status).toBe("unavailable");
    expect(body.gradingLagSeconds).toBeGreaterThanOrEqual(630);
    expect(body.reason).toMatch(/^grading lags 6\d\d s \(over 600 s\)/);
    // /health is not about grading.
    expect((await fetch(`${base}/health`)).status).toBe(200);
    await gradingProcessor({ db, reads, now, logger: log.logger })({} as Job);
    expect(await gradingLagSeconds({ db, reads, now })).toBe(0);
    await sleep(5100);
    const ready = await fetch(`${base}/ready`);
    expect([ready.status, ((await ready.json()) as { gradingLagSeconds: number }).gradingLagSeconds]).toEqual([200, 0]);
    expect(owner).toMatch(/^0x/);
  });

  it("is 0 once a pass covered every indexed call, and stays 0 for a filing whose call is not indexed yet", async () => {
    await gradingProcessor({ db, reads, now, logger: log.logger })({} as Job);
    expect(await gradingLagSeconds({ db, reads, now })).toBe(0);
    await db
      .insertInto("filing")
      .values({
        id: "unsent",
        owner: "0x00000000000000000000000000000000000000ee",
        agent_tag: "a",
        kind: "order-action",
        steps: [],
        created_at: new Date(),
        call_key: "0xabc",
        owner_session: false,
      })
      .execute();
    expect(await gradingLagSeconds({ db, reads, now })).toBe(0);
  });

  it("is 503 when the lag cannot be read within 3 s, and /metrics still answers", async () => {
    const worker = workerOf("ready-stuck", async () => ({}));
    const queues = queueMetrics({ redisUrl: REDIS_URL, prefix, queues: ["ready-stuck"] });
    closers.push(() => queues.close());
    const { base } = await startMetrics([worker], queues, () => new Promise<number>(() => {}));
    const started = Date.now();
    const res = await fetch(`${base}/ready`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { reason: string }).reason).toBe(
      "the grading lag cannot be read: the grading lag's read passed its deadline of 3 s, waiting on its own code (no connection or statement awaited)",
    );
    expect(Date.now() - started).toBeLessThan(4500);
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(sample(await metrics.text(), "agent_grading_lag_seconds")).toBeNaN();
  });
});
