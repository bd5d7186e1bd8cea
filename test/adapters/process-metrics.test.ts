// A service process's /metrics gives each V8 heap space's resident size beside prom-client's committed one:
// the young generation is committed whole but resident only as far as it was touched.
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { collectProcessMetrics } from "../../adapters/process-metrics.js";

const sample = (text: string, name: string, space: string) => {
  const m = new RegExp(`^${name}\\{space="${space}"\\} ([0-9.e+]+)`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
};

describe("a process's metrics", () => {
  it("give every heap space's resident size, about its committed size at most (the young generation's within it)", async () => {
    const registry = new Registry();
    collectProcessMetrics(registry);
    // Allocate a little so that the young generation is in use.
    const junk = Array.from({ length: 50_000 }, (_, i) => ({ i, s: `x${i}` }));
    const text = await registry.metrics();
    expect(junk.length).toBe(50_000);
    for (const space of ["new", "old", "code", "large_object"]) {
      const resident = sample(text, "nodejs_heap_space_physical_bytes", space);
      const committed = sample(text, "nodejs_heap_space_size_total_bytes", space);
      expect(resident, space).toBeGreaterThanOrEqual(0);
      // V8's resident figure may run a little past its committed one (old space by 32 KiB, seen here).
      expect(resident!, space).toBeLessThanOrEqual(committed! + 2 ** 20);
    }
    expect(sample(text, "nodejs_heap_space_physical_bytes", "new")!).toBeLessThanOrEqual(sample(text, "nodejs_heap_space_size_total_bytes", "new")!);
    expect(sample(text, "nodejs_heap_space_physical_bytes", "new")).toBeGreaterThan(0);
    expect(sample(text, "nodejs_heap_space_physical_bytes", "old")).toBeGreaterThan(0);
  });
});
