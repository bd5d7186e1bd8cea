// Request-reply over BullMQ against the machine's Redis, with a key prefix of its own.
import { randomBytes } from "node:crypto";
import { Worker, Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { CallerGoneError, createJobClient, JobFailedError, JobTimeoutError, QueueBusyError } from "../../../adapters/queue/request-reply.js";
import { QUEUE_EVENTS_KEPT } from "../../../adapters/queue/options.js";
import { startRedisServer } from "../../helpers/redis-server.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `test:${randomBytes(4).toString("hex")}:bull`;
const workerConnection = () => new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const closers: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("request-reply jobs", () => {
  it("answers with the worker's result, and shares one job between identical requests", async () => {
    let runs = 0;
    const worker = new Worker(
      "echo",
      async (job) => {
        runs++;
        await new Promise((r) => setTimeout(r, 100));
        return { doubled: job.data.n * 2 };
      },
      { connection: workerConnection(), prefix },
    );
    closers.push(() => worker.close());
    const client = createJobClient({ redisUrl: REDIS_URL, prefix });
    closers.push(() => client.close());
    const [a, b] = await Promise.all([
      client.run("echo", "double", { n: 21 }, { jobId: "same-inputs", timeoutMs: 5000 }),
      client.run("echo", "double", { n: 21 }, { jobId: "same-inputs", timeoutMs: 5000 }),
    ]);
    expect(a).toEqual({ doubled: 42 });
    expect(b).toEqual({ doubled: 42 });
    expect(runs).toBe(1);
  });

  it("reports a failing job, and a job that outlives its deadline", async () => {
    const worker = new Worker(
      "flaky",
      async (job) => {
        if (job.name === "fail") throw new Error("NO_CANDLES");
        await new Promise((r) => setTimeout(r, 1000));
        return 1;
      },
      { connection: workerConnection(), prefix },
    );
    closers.push(() => worker.close());
    const client = createJobClient({ redisUrl: REDIS_URL, prefix });
    closers.push(() => client.close());
    await expect(client.run("flaky", "fail", {}, { timeoutMs: 5000 })).rejects.toBeInstanceOf(JobFailedError);
    await expect(client.run("flaky", "slow", {}, { timeoutMs: 200 })).rejects.toBeInstanceOf(JobTimeoutError);
  });

  it("refuses new jobs while the queue is saturated", async () => {
    const client = createJobClient({ redisUrl: REDIS_URL, prefix, maxWaiting: 2 });
    closers.push(() => client.close());
    // No worker: jobs wait (long enough to be there when the third comes, on a loaded machine too).
    const pending = [1, 2].map((n) => client.run("idle", "x", { n }, { timeoutMs: 2000 }).catch(() => undefined));
    const idle = new Queue("idle", { connection: workerConnection(), prefix });
    closers.push(() => idle.close());
    for (let i = 0; i < 100 && (await idle.getWaitingCount()) < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await expect(client.run("idle", "x", { n: 3 }, { timeoutMs: 300 })).rejects.toBeInstanceOf(QueueBusyError);
    await Promise.all(pending);
  });

  it("fails at once when Redis is down", async () => {
    const client = createJobClient({ redisUrl: "redis://127.0.0.1:6390", prefix });
    closers.push(() => client.close());
    const started = Date.now();
    await expect(client.run("any", "x", {}, { timeoutMs: 5000 })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe("fair shares and callers that go (issue 32)", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("a client past its share of a queue gets QueueBusyError while another client gets through; the share comes back", async () => {
    const client = createJobClient({ redisUrl: REDIS_URL, prefix, maxWaiting: 100 });
    closers.push(() => client.close());
    const a = { client: "ip:203.0.113.1" };
    const b = { client: "ip:203.0.113.2" };
    // No worker: jobs wait until their deadline.
    const held = [1, 2].map((n) => client.run("fair", "x", { n }, { timeoutMs: 400, caller: a, share: 2, removeWhenGone: true }).catch((e) => e));
    await sleep(100);
    const refused = await client.run("fair", "x", { n: 3 }, { timeoutMs: 400, caller: a, share: 2 }).catch((e) => e);
    expect(refused).toBeInstanceOf(QueueBusyError);
    expect((refused as QueueBusyError).ownShare).toBe(true);
    const other = client.run("fair", "x", { n: 4 }, { timeoutMs: 400, caller: b, share: 2, removeWhenGone: true }).catch((e) => e);
    expect(await other).toBeInstanceOf(JobTimeoutError); // admitted (it waited), not refused
    expect((await Promise.all(held)).every((e) => e instanceof JobTimeoutError)).toBe(true);
    // Timed out and removed: nothing of theirs waits, and A's places are back.
    const queue = new Queue("fair", { connection: workerConnection(), prefix });
    closers.push(() => queue.close());
    expect(await queue.getJobCountByTypes("waiting", "prioritized")).toBe(0);
    const redis = new Redis(REDIS_URL);
    expect(await redis.exists(`${prefix}:share:fair:${a.client}`)).toBe(0);
    redis.disconnect();
  });

  it("a client's first job goes ahead of a flooder's later ones (priority = places held)", async () => {
    const client = createJobClient({ redisUrl: REDIS_URL, prefix, maxWaiting: 100 });
    closers.push(() => client.close());
    const order: string[] = [];
    const flood = [1, 2, 3, 4].map((n) => client.run("order", "x", { who: `flood-${n}` }, { timeoutMs: 5000, caller: { client: "ip:flood" }, share: 10 }));
    await sleep(100);
    const mine = client.run("order", "x", { who: "me" }, { timeoutMs: 5000, caller: { client: "ip:me" }, share: 10 });
    await sleep(100);
    const worker = new Worker(
      "order",
      async (job) => {
        order.push(job.data.who);
        return 1;
      },
      { connection: workerConnection(), prefix, concurrency: 1 },
    );
    closers.push(() => worker.close());
    await Promise.all([...flood, mine]);
    expect(order.indexOf("me")).toBeLessThanOrEqual(1); // behind at most the flooder's first
  });

  it("a caller that disconnects removes its waiting job; one that goes while its job runs marks it gone", async () => {
    const client = createJobClient({ redisUrl: REDIS_URL, prefix, maxWaiting: 100 });
    closers.push(() => client.close());
    const queue = new Queue("gone", { connection: workerConnection(), prefix });
    closers.push(() => queue.close());
    // Waiting (no worker yet): the abort removes it.
    const waiting = new AbortController();
    const first = client
      .run("gone", "x", {}, { timeoutMs: 5000, caller: { client: "ip:c", signal: waiting.signal }, share: 5, removeWhenGone: true })
      .catch((e) => e);
    await sleep(100);
    waiting.abort();
    expect(await first).toBeInstanceOf(CallerGoneError);
    expect(await queue.getJobCountByTypes("waiting", "prioritized")).toBe(0);
    // Running: it cannot be removed, so it is marked gone for the worker.
    let runningId: string | undefined;
    const worker = new Worker(
      "gone",
      async (job) => {
        runningId = job.id;
        await sleep(400);
        return (await client.isGone("gone", job.id!)) ? "dropped" : "stored";
      },
      { connection: workerConnection(), prefix },
    );
    closers.push(() => worker.close());
    const running = new AbortController();
    const second = client
      .run("gone", "x", {}, { timeoutMs: 5000, caller: { client: "ip:c", signal: running.signal }, share: 5, removeWhenGone: true })
      .catch((e) => e);
    while (!runningId) await sleep(20);
    running.abort();
    expect(await second).toBeInstanceOf(CallerGoneError);
    expect(await client.isGone("gone", runningId)).toBe(true);
    await sleep(500);
    expect(await (await queue.getJob(runningId))?.returnvalue).toBe("dropped");
  });
});

describe("the queues' event streams", () => {
  it("keep about the newest 1,000 events, however many jobs pass", async () => {
    const client = createJobClient({ redisUrl: REDIS_URL, prefix });
    closers.push(() => client.close());
    const worker = new Worker("many", async (job) => job.data.n, { connection: workerConnection(), prefix, concurrency: 50 });
    closers.push(() => worker.close());
    // Each job logs several events (added, waiting, active, completed): 1,500 jobs log over 5,000.
    for (let i = 0; i < 1500; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => client.run("many", "n", { n: i + k }, { timeoutMs: 20_000 })));
    const redis = new Redis(REDIS_URL);
    const kept = await redis.xlen(`${prefix}:many:events`);
    const bound = await redis.hget(`${prefix}:many:meta`, "opts.maxLenEvents");
    redis.disconnect();
    expect(bound).toBe(String(QUEUE_EVENTS_KEPT));
    // Trimmed with `~`: Redis cuts whole stream nodes (100 entries each), so a little over the bound stays.
    expect(kept).toBeGreaterThanOrEqual(QUEUE_EVENTS_KEPT);
    expect(kept).toBeLessThan(QUEUE_EVENTS_KEPT * 1.5);
  }, 60_000);

  it("keep their bound after a Redis restarted without its data (BullMQ writes it once, at start)", async () => {
    const server = await startRedisServer(); // a Redis of this test's own, to kill and start
    closers.push(() => server.kill());
    const client = createJobClient({ redisUrl: server.url, prefix });
    const worker = new Worker("bounded", async () => "ok", { connection: new Redis(server.url, { maxRetriesPerRequest: null }), prefix });
    closers.push(() => worker.close());
    const bound = async () => {
      const redis = new Redis(server.url);
      try {
        return await redis.hget(`${prefix}:bounded:meta`, "opts.maxLenEvents");
      } finally {
        redis.disconnect();
      }
    };
    expect(await client.run("bounded", "x", {}, { timeoutMs: 5000 })).toBe("ok");
    expect(await bound()).toBe(String(QUEUE_EVENTS_KEPT));
    await server.kill();
    await server.start(); // empty: the meta is gone with everything else
    // The client's connection comes back on its own; its queue writes the bound again once it is ready.
    const until = Date.now() + 15_000;
    while (Date.now() < until && (await bound()) !== String(QUEUE_EVENTS_KEPT)) await new Promise((r) => setTimeout(r, 200));
    expect(await bound()).toBe(String(QUEUE_EVENTS_KEPT));
    // Closed while its event reader may still be reconnecting: it stops (BullMQ's own close alone never settled).
    const closing = Date.now();
    await client.close();
    expect(Date.now() - closing).toBeLessThan(5000);
  }, 60_000);
});
