// The soak's heap census (bench/soak/heap-census.ts) reads the figures a service process's metrics give
// (prom-client's defaults and the heap spaces' resident sizes), and its memory sample takes V8's young
// generation, as resident, off a Node process's RSS.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Registry } from "prom-client";
import { collectProcessMetrics } from "../../adapters/process-metrics.js";
import { describe, expect, it } from "vitest";
import { heapLine, youngMiB } from "../../bench/soak/heap-census.js";
import { processMemory } from "../../bench/soak/invariants.js";
import type { Supervised } from "../../bench/soak/procs.js";

describe("the soak's heap census", () => {
  it("names RSS, the young and old spaces and memory outside the heap from a process's metrics", async () => {
    const registry = new Registry();
    collectProcessMetrics(registry);
    const line = heapLine(await registry.metrics());
    const m = /^rss (\d+) MiB, young (\d+)\/(\d+) MiB \(resident (\d+)\), old (\d+)\/(\d+) MiB, heap (\d+)\/(\d+) MiB, external (\d+) MiB$/.exec(line);
    expect(m, line).not.toBeNull();
    const [rss, , youngTotal, youngResident, oldUsed, oldTotal, heapUsed, heapTotal] = m!.slice(1).map(Number) as number[];
    expect(youngResident).toBeLessThanOrEqual(youngTotal!);
    expect(rss).toBeGreaterThan(10);
    expect(youngTotal).toBeGreaterThan(0);
    expect(oldUsed).toBeLessThanOrEqual(oldTotal!);
    expect(heapUsed).toBeLessThanOrEqual(heapTotal!);
    expect(Math.abs(rss! - process.memoryUsage().rss / 2 ** 20)).toBeLessThan(100);
  });

  it("says what it could not read", () => {
    expect(heapLine("")).toBe("rss ? MiB, young ?/? MiB (resident ?), old ?/? MiB, heap ?/? MiB, external ? MiB");
  });
});

describe("the young generation the memory sample takes off", () => {
  it("is its resident size where the process gives it, else its committed size (Ponder's indexer)", async () => {
    const own = new Registry();
    collectProcessMetrics(own);
    const text = await own.metrics();
    const resident = Number(/^nodejs_heap_space_physical_bytes\{space="new"\} (\d+)/m.exec(text)![1]) / 2 ** 20;
    const committed = Number(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/m.exec(text)![1]) / 2 ** 20;
    expect(youngMiB(text)).toBe(resident);
    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
    const onlyCommitted = await defaults.metrics();
    expect(onlyCommitted).not.toContain("nodejs_heap_space_physical_bytes");
    expect(youngMiB(onlyCommitted)).toBeCloseTo(committed, 0);
  });
});

describe("the soak's memory sample", () => {
  it("takes a Node process's young generation off its RSS, and leaves out a process whose figures do not answer", async () => {
    const registry = new Registry();
    collectProcessMetrics(registry);
    const server = createServer(async (_req, res) => res.end(await registry.metrics()));
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const port = (server.address() as AddressInfo).port;
    const self = (name: string) => ({ name, pid: () => process.pid, alive: () => true }) as unknown as Supervised;
    try {
      const [judged, rss] = await processMemory({
        processes: [self("api1"), self("devnet"), self("worker")],
        metrics: [
          { name: "api1", url: `http://127.0.0.1:${port}/metrics` },
          { name: "worker", url: "http://127.0.0.1:9/metrics" },
        ],
      });
      const young = youngMiB(await registry.metrics())!;
      expect(young).toBeGreaterThan(0);
      // Both read the same process a moment apart: RSS moves a little between the reads.
      expect(Math.abs(judged.get("api1")! - (rss.get("api1")! - young))).toBeLessThan(young / 2);
      expect(judged.get("devnet")).toBe(rss.get("devnet"));
      expect(judged.has("worker")).toBe(false);
      expect(rss.has("worker")).toBe(true);
    } finally {
      server.close();
    }
  });
});
