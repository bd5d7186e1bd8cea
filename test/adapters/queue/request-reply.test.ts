// Request-reply over BullMQ against the machine's Redis, with a key prefix of its own.
import { randomBytes } from "node:crypto";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createJobClient, JobFailedError, JobTimeoutError, QueueBusyError } from "../../../adapters/queue/request-reply.js";

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
    // No worker: jobs wait.
    const pending = [1, 2].map((n) => client.run("idle", "x", { n }, { timeoutMs: 300 }).catch(() => undefined));
    await new Promise((r) => setTimeout(r, 100));
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
