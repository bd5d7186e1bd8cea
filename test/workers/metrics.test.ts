// A worker's health and metrics listener (workers/metrics.ts), over real BullMQ workers in a real Redis:
// its jobs by queue and outcome, their durations, the queues' counts, and /health turning 503 when one
// of its workers stops or Redis is not ready.
import type { Server } from "node:http";
import { Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueMetrics, type QueueMetrics } from "../../adapters/queue/metrics.js";
import { startWorkerMetrics } from "../../workers/metrics.js";
import { capturingLogger, connectRedis, deleteKeys, randomPrefix, REDIS_URL } from "../api/support.js";
import { freePort } from "../helpers/stack.js";

const prefix = randomPrefix();
let redis: Redis;
let connection: Redis;
let ok: Worker;
let failing: Worker;
let server: Server;
let metrics: QueueMetrics;
let base: string;
let redisReady = true;

beforeAll(async () => {
  redis = await connectRedis();
  connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  ok = new Worker("ok", async () => ({ done: true }), { connection, prefix });
  failing = new Worker(
    "bad",
    async (): Promise<unknown> => {
      throw new Error("no");
    },
    { connection, prefix },
  );
  metrics = queueMetrics({ redisUrl: REDIS_URL, prefix, queues: ["ok", "bad"] });
  const port = await freePort();
  server = startWorkerMetrics({
    workers: [ok, failing],
    queueText: metrics.text,
    redisReady: () => redisReady,
    host: "127.0.0.1",
    port,
    logger: capturingLogger().logger,
  });
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server?.close();
  await Promise.allSettled([ok?.close(), failing?.close(), metrics?.close()]);
  connection?.disconnect();
  await deleteKeys(redis, prefix);
  await redis.quit();
});

async function runJob(queueName: string, expectFailure: boolean) {
  const queue = new Queue(queueName, { connection: { url: REDIS_URL }, prefix });
  const events = new QueueEvents(queueName, { connection: { url: REDIS_URL }, prefix });
  await events.waitUntilReady();
  const job = await queue.add("j", {}, { attempts: 1 });
  const done = job.waitUntilFinished(events, 10_000);
  if (expectFailure) await expect(done).rejects.toThrow("no");
  else await done;
  await new Promise((r) => setTimeout(r, 50)); // the worker's own event, after the queue's
  await Promise.all([events.close(), queue.close()]);
}

describe("worker metrics", () => {
  it("counts jobs by queue and outcome, times them, and serves the queues' counts", async () => {
    await runJob("ok", false);
    await runJob("ok", false);
    await runJob("bad", true);
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('agent_worker_jobs_total{queue="ok",outcome="completed"} 2');
    expect(text).toContain('agent_worker_jobs_total{queue="bad",outcome="failed"} 1');
    expect(text).toMatch(/agent_worker_job_duration_seconds_count\{queue="ok"\} 2/);
    expect(text).toContain('bullmq_job_count{queue="bad", state="failed"} 1');
    expect(text).toContain("process_resident_memory_bytes");
  });

  it("is healthy while its workers run and Redis is ready, 503 otherwise", async () => {
    const healthy = await fetch(`${base}/health`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({ status: "ok", stopped: [] });
    redisReady = false;
    expect((await fetch(`${base}/health`)).status).toBe(503);
    redisReady = true;
    await failing.close();
    const down = await fetch(`${base}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: "unavailable", stopped: ["bad"] });
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });
});
