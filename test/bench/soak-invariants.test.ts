// The soak's judgement of connections and memory (bench/soak/invariants.ts): a pool, like a process, is
// judged over its last life, which a restart of its process or of Postgres begins.
import { describe, expect, it } from "vitest";
import { flatRows, newSamples, poolRestart } from "../../bench/soak/invariants.js";

const MIN = 60_000;

/** One sample a minute over an hour: `connections(app, minute)`. */
function hour(connections: (app: string, minute: number) => number) {
  const s = newSamples();
  for (let m = 0; m <= 60; m++) {
    s.connections.push([m * MIN, new Map(["agent-worker", "agent-api"].map((app) => [app, connections(app, m)]))]);
    s.memory.push([m * MIN, new Map([["worker", 150]])]);
  }
  return s;
}
const judge = (s: ReturnType<typeof newSamples>, restarts: [string, number][]) =>
  flatRows(s, { start: 0, warmEnd: 10 * MIN, end: 60 * MIN, enforce: true, restarts: new Map(restarts) })[0]!;

describe("the soak's connection row", () => {
  it("names the processes and the Postgres restart that begin a pool's life", () => {
    const restarts = new Map([
      ["worker", 22 * MIN],
      ["api1", 16 * MIN],
      ["postgres", 5 * MIN],
    ]);
    expect(poolRestart("agent-worker-readiness", restarts)).toBe(22 * MIN);
    expect(poolRestart("agent-api-reads", restarts)).toBe(16 * MIN);
    expect(poolRestart("ponder_sync", restarts)).toBe(5 * MIN);
    expect(poolRestart("soak-other", new Map([["worker", MIN]]))).toBeUndefined();
  });

  it("a worker restarted mid-run whose new pool fills higher is judged over its new life, not against its old one", () => {
    const s = hour((app, m) => (app === "agent-worker" ? (m < 22 ? 3 : 7) : 10));
    expect(judge(s, [])).toMatchObject({ result: "BROKEN" });
    const row = judge(s, [["worker", 22 * MIN]]);
    expect(row.result).toBe("held");
    expect(row.figures).toContain("agent-worker 7→7");
  });

  it("a pool that keeps growing through its life is still a leak", () => {
    const s = hour((app, m) => (app === "agent-worker" ? (m < 22 ? 3 : m - 18) : 10));
    expect(judge(s, [["worker", 22 * MIN]])).toMatchObject({ result: "BROKEN", figures: expect.stringContaining("(grew)") });
  });

  it("after a Postgres restart late in the run every pool is too young to judge, and says so", () => {
    const s = hour(() => 5);
    const row = judge(s, [["postgres", 55 * MIN]]);
    expect(row).toMatchObject({ result: "shown", figures: expect.stringContaining("agent-worker started again at 55 min: too late to judge") });
  });
});

/** An hour of one process's memory: `judged(minute)` and its RSS `rss(minute)`. */
function memoryHour(judged: (m: number) => number, rss: (m: number) => number) {
  const s = newSamples();
  for (let m = 0; m <= 60; m++) {
    s.memory.push([m * MIN, new Map([["api1", judged(m)]])]);
    s.rss.push([m * MIN, new Map([["api1", rss(m)]])]);
  }
  return flatRows(s, { start: 0, warmEnd: 10 * MIN, end: 60 * MIN, enforce: true, restarts: new Map() })[1]!;
}

describe("the soak's memory row", () => {
  it("judges a Node process by RSS less V8's young generation, and shows its RSS beside", () => {
    // The young generation went from 64 to 128 MiB late in the run (RSS +64 MiB); the rest stayed flat.
    const row = memoryHour(
      () => 280,
      (m) => (m < 45 ? 344 : 408),
    );
    expect(row).toMatchObject({ result: "held", figures: "api1 280→280 (RSS 344→408)" });
  });

  it("still catches a leak outside the young generation", () => {
    const row = memoryHour(
      (m) => 280 + m,
      (m) => 344 + m,
    );
    expect(row).toMatchObject({ result: "BROKEN", figures: expect.stringContaining("(grew)") });
  });
});
