// The soak's heap census (bench/soak/heap-census.ts) reads the figures prom-client's default metrics give.
import { collectDefaultMetrics, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { heapLine } from "../../bench/soak/heap-census.js";

describe("the soak's heap census", () => {
  it("names RSS, the young and old spaces and memory outside the heap from a process's metrics", async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const line = heapLine(await registry.metrics());
    const m = /^rss (\d+) MiB, young (\d+)\/(\d+) MiB, old (\d+)\/(\d+) MiB, heap (\d+)\/(\d+) MiB, external (\d+) MiB$/.exec(line);
    expect(m, line).not.toBeNull();
    const [rss, , youngTotal, oldUsed, oldTotal, heapUsed, heapTotal] = m!.slice(1).map(Number) as number[];
    expect(rss).toBeGreaterThan(10);
    expect(youngTotal).toBeGreaterThan(0);
    expect(oldUsed).toBeLessThanOrEqual(oldTotal!);
    expect(heapUsed).toBeLessThanOrEqual(heapTotal!);
    expect(Math.abs(rss! - process.memoryUsage().rss / 2 ** 20)).toBeLessThan(100);
  });

  it("says what it could not read", () => {
    expect(heapLine("")).toBe("rss ? MiB, young ?/? MiB, old ?/? MiB, heap ?/? MiB, external ? MiB");
  });
});
