// What the soak watches while it runs (samplers) and judges at the end (the invariants of issue 52), each a
// row of the final table: held or broken, with the figure that says so.
import type { Redis } from "ioredis";
import type postgres from "postgres";
import { JOB_DEADLINES_MS } from "../../workers/deadline.js";
import { QUEUE_NAMES } from "../../usecases/queues.js";
import type { FaultWindow } from "./faults.js";
import type { Balancer } from "./http.js";
import { youngMiB } from "./heap-census.js";
import { treeRssMiB, type Supervised } from "./procs.js";
import type { Poller, SentCall } from "./users.js";

export type Row = { invariant: string; result: "held" | "BROKEN" | "shown"; figures: string };

export type Samples = {
  /** [time, application_name -> connections] */
  connections: [number, Map<string, number>][];
  /**
   * [time, process -> MiB judged]: a Node process's RSS less V8's young generation (see `youngMiB`), other
   * processes' RSS, Redis's used_memory. A Node process whose figures did not answer is left out of that sample.
   */
  memory: [number, Map<string, number>][];
  /** [time, process -> RSS MiB], shown beside the judged figure. */
  rss: [number, Map<string, number>][];
  /** Jobs seen active past their deadline: queue:id -> seconds active. */
  pastDeadline: Map<string, number>;
  /** tx hash (lowercase) -> when the soak first saw it matched to a filing. */
  matched: Map<string, number>;
  sampleErrors: number;
};

export const newSamples = (): Samples => ({ connections: [], memory: [], rss: [], pastDeadline: new Map(), matched: new Map(), sampleErrors: 0 });

export type SampleDeps = {
  sql: postgres.Sql;
  dbName: string;
  apiSchema: string;
  redis: Redis;
  redisPrefix: string;
  processes: Supervised[];
  /** Each Node process's Prometheus figures (by its supervised name). */
  metrics: { name: string; url: string }[];
  /** The hashes not yet matched. */
  pending(): string[];
};

/** One sample of everything: connections per application_name, memory, active jobs' ages, matched calls. */
export async function sample(s: Samples, d: SampleDeps): Promise<void> {
  const now = Date.now();
  try {
    const rows = await d.sql<{ app: string; n: number }[]>`
      select application_name as app, count(*)::int as n from pg_stat_activity
      where datname = ${d.dbName} and application_name <> 'soak-monitor' group by 1`;
    s.connections.push([now, new Map(rows.map((r) => [r.app || "(none)", r.n]))]);
    const pending = d.pending();
    if (pending.length > 0) {
      const found = await d.sql<{ tx: string }[]>`
        select lower(tx_hash) as tx from ${d.sql(d.apiSchema)}.report_action where lower(tx_hash) in ${d.sql(pending)}`;
      for (const r of found) if (!s.matched.has(r.tx)) s.matched.set(r.tx, now);
    }
  } catch {
    s.sampleErrors++; // Postgres restarting
  }
  const [mem, rss] = await processMemory(d);
  try {
    const info = await d.redis.info("memory");
    mem.set("redis", Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0) / 2 ** 20);
    for (const q of QUEUE_NAMES) {
      for (const id of await d.redis.lrange(`${d.redisPrefix}:bull:${q}:active`, 0, -1)) {
        const processedOn = Number(await d.redis.hget(`${d.redisPrefix}:bull:${q}:${id}`, "processedOn"));
        const age = now - processedOn;
        // 5 s over: the sampler's own period, so a job failed right at its deadline is not counted.
        if (processedOn > 0 && age > JOB_DEADLINES_MS[q] + 5000) s.pastDeadline.set(`${q}:${id}`, Math.round(age / 1000));
      }
    }
  } catch {
    s.sampleErrors++; // Redis restarting
  }
  s.memory.push([now, mem]);
  s.rss.push([now, rss]);
}

/** Each live process's RSS, and the figure judged (see `Samples.memory`). */
export async function processMemory(d: Pick<SampleDeps, "processes" | "metrics">): Promise<[Map<string, number>, Map<string, number>]> {
  const young = new Map(
    await Promise.all(
      d.metrics.map(async ({ name, url }) => {
        const text = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.text(),
          () => "",
        );
        return [name, youngMiB(text)] as const;
      }),
    ),
  );
  const mem = new Map<string, number>();
  const rss = new Map<string, number>();
  for (const p of d.processes) {
    const pid = p.pid();
    if (!pid || !p.alive()) continue;
    const mib = treeRssMiB(pid);
    rss.set(p.name, mib);
    const y = young.get(p.name);
    if (!young.has(p.name)) mem.set(p.name, mib);
    else if (y !== undefined) mem.set(p.name, mib - y);
  }
  return [mem, rss];
}

const inWindow = (t: number, windows: FaultWindow[], graceMs: number) => windows.some((w) => t >= w.start && t <= w.end + graceMs);

/** The time by which a call mined at `minedAt` must be matched: 2 minutes, or 2 minutes after an outage that overlapped them. */
function matchDeadline(minedAt: number, windows: FaultWindow[]): number {
  let by = minedAt + 120_000;
  for (const w of [...windows].sort((a, b) => a.start - b.start)) if (w.start <= by && w.end >= minedAt) by = Math.max(by, w.end + 120_000);
  return by;
}

export function matchingRow(sent: SentCall[], canonical: Set<string>, s: Samples, windows: FaultWindow[]): Row {
  const calls = sent.filter((c) => canonical.has(c.txHash.toLowerCase()));
  const late: string[] = [];
  const lags: number[] = [];
  for (const c of calls) {
    const at = s.matched.get(c.txHash.toLowerCase());
    if (at !== undefined) lags.push((at - c.minedAt) / 1000);
    if (at === undefined || at > matchDeadline(c.minedAt, windows))
      late.push(`${c.via} ${c.txHash.slice(0, 10)} ${at === undefined ? "never matched" : `matched after ${((at - c.minedAt) / 1000).toFixed(0)} s`}`);
  }
  lags.sort((a, b) => a - b);
  const p = (q: number) => (lags.length ? lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!.toFixed(0) : "-");
  return {
    invariant: "every mined service call matched to its filing within 2 min (of the call, or of the end of an outage)",
    result: late.length === 0 && calls.length > 0 ? "held" : "BROKEN",
    figures: `${calls.length - late.length}/${calls.length} in time (${sent.length - calls.length} reorged out); lag p50 ${p(0.5)} s, max ${p(1)} s${late.length ? `; late: ${late.slice(0, 5).join(", ")}` : ""}`,
  };
}

/** Each owner's changes after `baseline`, in order (ids are positions). */
async function changesOf(sql: postgres.Sql, viewsSchema: string, owner: string, baseline: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select position::text as id from ${sql(viewsSchema)}.activity where owner = ${owner.toLowerCase()} and position > ${baseline} order by position`;
  return rows.map((r) => r.id);
}

/**
 * Each polling agent holds the owner's changes since its baseline, in order, each once: what it holds is a
 * prefix of the index's changes (read after it stopped), and covers every change indexed before the end
 * of the drain (read then; the agents get up to 60 s to take them in before they are stopped).
 */
export async function deliveryRow(pollers: Poller[], sql: postgres.Sql, viewsSchema: string, stop: () => Promise<void>): Promise<Row> {
  const faults: string[] = [];
  const ready = pollers.filter((p) => p.baseline !== undefined);
  for (const p of pollers) if (p.baseline === undefined) faults.push(`${p.owner.slice(0, 8)}: no baseline`);
  const before = new Map<Poller, string[]>();
  for (const p of ready) before.set(p, await changesOf(sql, viewsSchema, p.owner, p.baseline!));
  const holds = (p: Poller) => before.get(p)!.every((id, i) => p.held[i]?.id === id);
  for (const until = Date.now() + 60_000; Date.now() < until && !ready.every(holds); ) await new Promise((r) => setTimeout(r, 1000));
  await stop();
  let delivered = 0;
  for (const p of ready) {
    for (const f of p.faults) faults.push(`${p.owner.slice(0, 8)}: ${f}`);
    const after = await changesOf(sql, viewsSchema, p.owner, p.baseline!);
    const got = p.held.map((c) => c.id);
    delivered += got.length;
    const missing = before.get(p)!.filter((id) => !got.includes(id)).length;
    const prefix = got.every((id, i) => after[i] === id);
    if (missing > 0 || !prefix)
      faults.push(
        `${p.owner.slice(0, 8)}: ${missing} missing${prefix ? "" : `, not the index's order (${got.filter((id) => !after.includes(id)).length} not in the index)`}`,
      );
  }
  return {
    invariant: "every activity change delivered exactly once, in order, to every polling agent",
    result: faults.length === 0 ? "held" : "BROKEN",
    figures: `${pollers.length} agents, ${delivered} changes held, ${pollers.reduce((a, p) => a + p.polls, 0)} polls${faults.length ? `; ${faults.length} faults: ${faults.slice(0, 4).join("; ")}` : ""}`,
  };
}

/** No 5xx but a 503 with Retry-After during a fault (and 30 s after); every prepare answered or refused with a code. */
export function errorsRow(lb: Balancer, unanswered: string[], windows: FaultWindow[]): Row {
  const bad = lb.answers.filter((a) => a.status >= 500 && !(a.status === 503 && a.retryAfter && inWindow(a.at, windows, 30_000)));
  const unreachable = lb.unreachable.filter((u) => !inWindow(u.at, windows, 30_000));
  const total = [...lb.counts.values()].reduce((a, n) => a + n, 0);
  const fivexx = lb.answers.filter((a) => a.status >= 500).length;
  const byRoute = new Map<string, number>();
  for (const a of bad)
    byRoute.set(`${a.route} ${a.status}${a.code ? ` ${a.code}` : ""}`, (byRoute.get(`${a.route} ${a.status}${a.code ? ` ${a.code}` : ""}`) ?? 0) + 1);
  return {
    invariant: "no 5xx except 503 with Retry-After during a fault; every prepare answered or refused with a code",
    result: bad.length === 0 && unanswered.length === 0 && unreachable.length === 0 ? "held" : "BROKEN",
    figures:
      `${total} answers, ${fivexx} 5xx (${bad.length} not a 503 with Retry-After in a fault window), ${lb.unreachable.length} unreachable (${unreachable.length} outside faults)` +
      `${bad.length ? `; not allowed: ${[...byRoute].map(([k, n]) => `${k} ×${n}`).join(", ")}` : ""}${unanswered.length ? `; unanswered prepares: ${unanswered.slice(0, 3).join(" | ")}` : ""}`,
  };
}

export function deadlineRow(s: Samples): Row {
  return {
    invariant: "no job active past its deadline",
    result: s.pastDeadline.size === 0 ? "held" : "BROKEN",
    figures: s.pastDeadline.size === 0 ? `${s.memory.length} samples` : [...s.pastDeadline].map(([k, sec]) => `${k} active ${sec} s`).join(", "),
  };
}

/** Values per key over the samples of [from, to). */
function windowOf(series: [number, Map<string, number>][], from: number, to: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [t, m] of series) if (t >= from && t < to) for (const [k, v] of m) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * Postgres connections per application_name, and memory, after the warm-up: the first and the last 15% of the
 * measured span compared (connections: the most seen, at most 20% + 2 more; memory: medians, under 10% more).
 * A run under 10 minutes is too short to tell a leak from a warm-up: shown, not judged.
 *
 * A process (or Redis) that a fault restarted starts from nothing and warms up again: its memory is judged
 * over its last life, from one warm-up after its restart (`restarts`: its name to when it came back), and
 * shown, not judged, when that life is too short to hold both windows. So are its pools: an application_name's
 * connections live as long as the processes that open them (agent-worker*: the worker; agent-api*: the APIs;
 * ponder*: the indexer) and as Postgres (restarted: every connection gone); a pool fills within
 * POOL_WARMUP_MS of its process's start, so its first window starts that long after its last restart.
 */
const POOL_WARMUP_MS = 2 * 60_000;

/** When the connections of `app` (an application_name) last started from none: its processes' or Postgres's last restart. */
export function poolRestart(app: string, restarts: ReadonlyMap<string, number>): number | undefined {
  const owners = app.startsWith("agent-worker") ? /^worker/ : app.startsWith("agent-api") ? /^api/ : app.startsWith("ponder") ? /^indexer$/ : undefined;
  const times = [...restarts].filter(([name]) => name === "postgres" || (owners?.test(name) ?? false)).map(([, at]) => at);
  return times.length ? Math.max(...times) : undefined;
}

export function flatRows(s: Samples, p: { start: number; warmEnd: number; end: number; enforce: boolean; restarts: Map<string, number> }): Row[] {
  const { warmEnd, end, enforce } = p;
  const span = end - warmEnd;
  const lastStart = end - span * 0.15;
  const rows: Row[] = [];
  for (const [what, series, judge] of [
    [
      "no connection leaks: Postgres connections per application_name flat after warm-up",
      s.connections,
      (a: number[], b: number[]) => Math.max(...b) <= Math.max(...a) * 1.2 + 2,
    ],
    [
      "memory flat: each process's RSS (a Node process's less V8's young generation) and Redis's used memory grow < 10% after warm-up",
      s.memory,
      (a: number[], b: number[]) => med(b) < med(a) * 1.1,
    ],
  ] as const) {
    const memory = what.startsWith("memory");
    const last = windowOf(series, lastStart, end + 1);
    const parts: string[] = [];
    let broken = false;
    let judged = 0;
    for (const k of new Set(series.flatMap(([, m]) => [...m.keys()]))) {
      const restarted = memory ? p.restarts.get(k) : poolRestart(k, p.restarts);
      const from = restarted !== undefined ? Math.max(warmEnd, restarted + (memory ? warmEnd - p.start : POOL_WARMUP_MS)) : warmEnd;
      // Its first window must end before the last begins: a life too short for both is shown, not judged.
      const a = from + span * 0.15 <= lastStart ? windowOf(series, from, from + span * 0.15).get(k) : undefined;
      const b = last.get(k);
      if (!a?.length || !b?.length) {
        if (restarted !== undefined && b?.length) parts.push(`${k} started again at ${((restarted - p.start) / 60_000).toFixed(0)} min: too late to judge`);
        continue;
      }
      // The devnet is the chain, not the service: it keeps every block in memory, so it grows by design (shown).
      const ok = k === "devnet" || judge(a, b);
      broken ||= !ok;
      judged++;
      const fmt = (xs: number[]) => (memory ? med(xs).toFixed(0) : String(Math.max(...xs)));
      const life = restarted !== undefined ? ` (since it started again at ${((restarted - p.start) / 60_000).toFixed(0)} min)` : "";
      const ra = memory ? windowOf(s.rss, from, from + span * 0.15).get(k) : undefined;
      const rb = memory ? windowOf(s.rss, lastStart, end + 1).get(k) : undefined;
      const rss = ra?.length && rb?.length && (fmt(ra) !== fmt(a) || fmt(rb) !== fmt(b)) ? ` (RSS ${fmt(ra)}→${fmt(rb)})` : "";
      parts.push(`${k} ${fmt(a)}→${fmt(b)}${rss}${life}${k === "devnet" ? " (the chain, not judged)" : ok ? "" : " (grew)"}`);
    }
    // No sample at all is a broken sampler; samples of lives all too young to judge are shown.
    const result = !enforce || (judged === 0 && parts.length > 0) ? "shown" : broken || parts.length === 0 ? "BROKEN" : "held";
    rows.push({ invariant: what, result, figures: parts.join(", ") || "no samples" });
  }
  return rows;
}
