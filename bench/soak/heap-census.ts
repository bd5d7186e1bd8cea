// What a Node process's memory is made of, printed by the soak beside Redis's census (at the start of the
// memory row's last window and at the end), so that a "grew" names the part: V8's young generation (which
// V8 sizes by itself), its old space (where a leak lands), or memory outside the heap (buffers, sockets).
// Read from the process's own Prometheus figures (prom-client's default metrics, and the resident size of
// each heap space that the service's processes add: adapters/process-metrics.ts).

const MiB = 2 ** 20;

/** The value of one sample of `name` (with `space` when given) in Prometheus text, or undefined. */
function value(text: string, name: string, space?: string): number | undefined {
  const label = space === undefined ? "" : `\\{space="${space}"\\}`;
  const match = new RegExp(`^${name}${label} ([0-9.e+]+)`, "m").exec(text);
  return match ? Number(match[1]) : undefined;
}

/**
 * V8's young generation as resident (MiB), or undefined. V8 sizes it by itself between one and two
 * semi-space pairs as the allocation rate goes (64 or 128 MiB for the API's 64 MiB semi-spaces), so it
 * moves a process's RSS by up to 64 MiB within minutes; nothing can leak there (what survives two
 * scavenges moves to the old space), so the memory row judges RSS less this. Its resident size where the
 * process gives it (`nodejs_heap_space_physical_bytes`, the service's own processes): its committed size
 * runs up to tens of MiB above what it adds to the RSS, which took too much off (session 33). Else (Ponder's
 * indexer) its committed size.
 */
export function youngMiB(text: string): number | undefined {
  const bytes = value(text, "nodejs_heap_space_physical_bytes", "new") ?? value(text, "nodejs_heap_space_size_total_bytes", "new");
  return bytes === undefined ? undefined : bytes / MiB;
}

/** One line from a process's /metrics text: RSS, the young and old spaces (used of total), memory outside the heap. */
export function heapLine(text: string): string {
  const mib = (bytes: number | undefined) => (bytes === undefined ? "?" : (bytes / MiB).toFixed(0));
  return (
    `rss ${mib(value(text, "process_resident_memory_bytes"))} MiB, ` +
    `young ${mib(value(text, "nodejs_heap_space_size_used_bytes", "new"))}/${mib(value(text, "nodejs_heap_space_size_total_bytes", "new"))} MiB (resident ${mib(value(text, "nodejs_heap_space_physical_bytes", "new"))}), ` +
    `old ${mib(value(text, "nodejs_heap_space_size_used_bytes", "old"))}/${mib(value(text, "nodejs_heap_space_size_total_bytes", "old"))} MiB, ` +
    `heap ${mib(value(text, "nodejs_heap_size_used_bytes"))}/${mib(value(text, "nodejs_heap_size_total_bytes"))} MiB, ` +
    `external ${mib(value(text, "nodejs_external_memory_bytes"))} MiB`
  );
}

/** `name: line` for every process whose /metrics answers (a process down says so). */
export async function heapCensus(metrics: { name: string; url: string }[]): Promise<string> {
  const lines = await Promise.all(
    metrics.map(async ({ name, url }) => {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
        return `${name} ${heapLine(await res.text())}`;
      } catch (error) {
        return `${name} no figures (${(error as Error).message})`;
      }
    }),
  );
  return lines.join("; ");
}
