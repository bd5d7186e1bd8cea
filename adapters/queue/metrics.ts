// BullMQ's own Prometheus export (Queue.exportPrometheusMetrics: bullmq_job_count by queue and state,
// and the completed and failed totals) for every queue, as one exposition: each queue's export repeats
// the HELP and TYPE lines, and Prometheus wants one group per metric family.
import type { Queue } from "bullmq";
import { newRedis, type RedisSentinel } from "../redis.js";
import { serviceQueue } from "./options.js";

export type QueueMetrics = {
  queues: readonly Queue[];
  text(): Promise<string>;
  /** Per queue, how long its oldest active job has run (seconds; 0 with none), on any worker. */
  oldestActiveSeconds(): Promise<Record<string, number>>;
  close(): Promise<void>;
};

export function queueMetrics(options: { redisUrl: string; sentinel?: RedisSentinel; prefix: string; queues: readonly string[] }): QueueMetrics {
  // A scrape while Redis is down fails at once (one retry) rather than hanging the scraper.
  const connection = newRedis(options.redisUrl, options.sentinel, { maxRetriesPerRequest: 1, lazyConnect: true });
  connection.on("error", () => {}); // the scrape that meets it answers 500; nothing else to do
  const queues = options.queues.map((name) => serviceQueue(name, { connection, prefix: options.prefix }));
  return {
    queues,
    async text() {
      return mergeExpositions(await Promise.all(queues.map((q) => q.exportPrometheusMetrics())));
    },
    async oldestActiveSeconds() {
      const now = Date.now();
      const ages = await Promise.all(
        queues.map(async (q) => {
          // Active jobs are few (the workers' concurrency), so all of them are read.
          const started = (await q.getActive()).map((j) => j.processedOn ?? now);
          return [q.name, started.length ? Math.max(0, (now - Math.min(...started)) / 1000) : 0] as const;
        }),
      );
      return Object.fromEntries(ages);
    },
    async close() {
      await Promise.allSettled(queues.map((q) => q.close()));
      connection.disconnect();
    },
  };
}

/** Several text expositions as one: each family's HELP and TYPE once, then all its samples. */
export function mergeExpositions(parts: readonly string[]): string {
  const families = new Map<string, { meta: string[]; samples: string[] }>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { meta: [], samples: [] }));
    return f;
  };
  for (const line of parts.flatMap((p) => p.split("\n"))) {
    const meta = /^# (HELP|TYPE) (\S+)/.exec(line);
    if (meta) {
      const f = family(meta[2]!);
      if (!f.meta.some((m) => m.startsWith(`# ${meta[1]} `))) f.meta.push(line);
    } else if (line.trim() && !line.startsWith("#")) {
      family(/^[^{\s]+/.exec(line)![0]).samples.push(line);
    }
  }
  return `${[...families.values()].map((f) => [...f.meta, ...f.samples].join("\n")).join("\n")}\n`;
}
