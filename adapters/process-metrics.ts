// A Node process's own figures on its /metrics: prom-client's default metrics, and how much of each V8 heap
// space is resident in memory, which the defaults do not give (they give each space's size as committed).
import { getHeapSpaceStatistics } from "node:v8";
import { collectDefaultMetrics, Gauge, type Registry } from "prom-client";

/**
 * prom-client's default metrics, and `nodejs_heap_space_physical_bytes{space}`: each V8 heap space's
 * resident size. V8 commits the young generation whole (up to 128 MiB for the API's 64 MiB semi-spaces) but
 * touches it as it allocates, so its committed size can be tens of MiB above what it adds to the RSS; an
 * operator (and the soak) reading the RSS by part needs the resident figure.
 */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "nodejs_heap_space_physical_bytes",
    help: "Resident size of each V8 heap space (physical_space_size), in bytes",
    labelNames: ["space"],
    registers: [registry],
    collect() {
      // The space names as prom-client's default heap-space metrics give them ("new", "old", "code"...).
      for (const s of getHeapSpaceStatistics()) this.set({ space: s.space_name.replace(/_space$/, "") }, s.physical_space_size);
    },
  });
}
