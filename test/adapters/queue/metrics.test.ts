// BullMQ's own export for every queue as one exposition (adapters/queue/metrics.ts): each family's HELP
// and TYPE once, every queue's samples, and the counts of real jobs in a real Redis.
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergeExpositions, queueMetrics, type QueueMetrics } from "../../../adapters/queue/metrics.js";
import { connectRedis, deleteKeys, randomPrefix, REDIS_URL } from "../../api/support.js";
import type { Redis } from "ioredis";

describe("mergeExpositions", () => {
  it("keeps one HELP and TYPE per family and groups its samples", () => {
    const a = '# HELP m_count N\n# TYPE m_count gauge\nm_count{queue="a"} 1\n# HELP t_total T\n# TYPE t_total counter\nt_total{queue="a"} 3';
    const b = '# HELP m_count N\n# TYPE m_count gauge\nm_count{queue="b"} 2\n# HELP t_total T\n# TYPE t_total counter\nt_total{queue="b"} 4';
    expect(mergeExpositions([a, b]).trim().split("\n")).toEqual([
      "# HELP m_count N",
      "# TYPE m_count gauge",
      'm_count{queue="a"} 1',
      'm_count{queue="b"} 2',
      "# HELP t_total T",
      "# TYPE t_total counter",
      't_total{queue="a"} 3',
      't_total{queue="b"} 4',
    ]);
  });
});

describe("queueMetrics over Redis", () => {
  const prefix = randomPrefix();
  let redis: Redis;
  let metrics: QueueMetrics;
  beforeAll(async () => {
    redis = await connectRedis();
    metrics = queueMetrics({ redisUrl: REDIS_URL, prefix, queues: ["one", "two"] });
  });
  afterAll(async () => {
    await metrics.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it("counts each queue's jobs by state, under bullmq_job_count", async () => {
    const one = new Queue("one", { connection: { url: REDIS_URL }, prefix });
    await one.add("a", {});
    await one.add("b", {}, { delay: 60_000 });
    await one.close();
    const text = await metrics.text();
    expect(text.match(/^# TYPE bullmq_job_count gauge$/gm)).toHaveLength(1);
    expect(text).toContain('bullmq_job_count{queue="one", state="waiting"} 1');
    expect(text).toContain('bullmq_job_count{queue="one", state="delayed"} 1');
    expect(text).toContain('bullmq_job_count{queue="two", state="waiting"} 0');
    expect(metrics.queues.map((q) => q.name)).toEqual(["one", "two"]);
  });
});
