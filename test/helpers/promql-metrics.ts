// The metric names and labels that the code declares (the API's and the worker's prom-client metrics,
// Ponder's and BullMQ's in node_modules, prom-client's process metrics), and a PromQL reader that finds
// what an expression uses: shared by the checks of the Grafana dashboard and of the alert rules in ops/.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Counter, Gauge, Histogram, type Metric, Registry, Summary } from "prom-client";
import { repoRoot } from "../../adapters/config.js";
import { createHttpMetrics, readCacheCounter } from "../../api/middleware/metrics.js";

export type Kind = "Counter" | "Gauge" | "Histogram" | "Summary" | "unknown";
export type Declared = { kind: Kind; labels: string[] };

/** prom-client declarations in a source text: `new [x.]Histogram({ name: "…", …, labelNames: […] })`. */
export function declarations(text: string, prefix = ""): Map<string, Declared> {
  const found = new Map<string, Declared>();
  const nameRe = /\bname:\s*["']([A-Za-z_:][\w:]*)["']/g;
  let m: RegExpExecArray | null;
  while ((m = nameRe.exec(text))) {
    const name = m[1]!;
    if (!name.startsWith(prefix)) continue;
    const before = text.slice(Math.max(0, m.index - 200), m.index);
    const kind = ([...before.matchAll(/new\s+(?:[\w$]+\.)?(Counter|Gauge|Histogram|Summary)\s*\(/g)].at(-1)?.[1] ?? "unknown") as Kind;
    // The labels of this declaration only: up to its closing `})` or the next `name:`.
    const rest = text.slice(nameRe.lastIndex);
    const end = Math.min(...[rest.search(/\}\s*\)/), rest.search(/\bname:/)].map((i) => (i < 0 ? rest.length : i)));
    const labelList = /labelNames:\s*\[([^\]]*)\]/.exec(rest.slice(0, end))?.[1] ?? "";
    found.set(name, { kind, labels: [...labelList.matchAll(/["']([\w]+)["']/g)].map((l) => l[1]!) });
  }
  return found;
}

export const read = (...path: string[]) => readFileSync(join(repoRoot, ...path), "utf8");

function ponderMetrics(): Map<string, Declared> {
  const dir = join(repoRoot, "node_modules/ponder/dist/esm");
  const all = new Map<string, Declared>();
  for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".js")) continue;
    for (const [name, d] of declarations(readFileSync(join(dir, file), "utf8"), "ponder_")) all.set(name, d);
  }
  return all;
}

function workerMetrics(): Map<string, Declared> {
  const file = join(repoRoot, "workers/metrics.ts");
  if (existsSync(file)) return declarations(readFileSync(file, "utf8"));
  // workers/metrics.ts is being written: these are the names and labels agreed for it.
  return new Map<string, Declared>([
    ["agent_worker_jobs_total", { kind: "Counter", labels: ["queue", "outcome"] }],
    ["agent_worker_job_duration_seconds", { kind: "Histogram", labels: ["queue"] }],
  ]);
}

/** prom-client's default process metrics the dashboard uses (checked against prom-client's source below). */
export const PROCESS_METRICS = ["process_resident_memory_bytes", "process_cpu_seconds_total", "nodejs_eventloop_lag_p99_seconds"];
export const promClientSource = () => {
  const dir = join(repoRoot, "node_modules/prom-client/lib/metrics");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".js"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
};

/** BullMQ writes its exposition by hand in Queue.exportPrometheusMetrics; its labels are read from that text. */
function bullmqMetrics(): { metrics: Map<string, Declared>; states: string[] } {
  const source = read("node_modules/bullmq/dist/esm/classes/queue-getters.js");
  // The sample line: bullmq_job_count{queue="${…}", state="${…}"${variables}} ${count}
  const line = /`bullmq_job_count\{(.*)$/m.exec(source)?.[1] ?? "";
  const labels = [...line.matchAll(/(\w+)="/g)].map((l) => l[1]!);
  // getJobCounts() with no types counts these states.
  const defaults = /sanitizeJobTypes\([^)]*\)\s*\{[\s\S]*?return\s*\[(\s*'[^\]]*)\]/.exec(source)?.[1] ?? "";
  const states = [...defaults.matchAll(/'([\w-]+)'/g)].map((s) => s[1]!);
  return { metrics: new Map([["bullmq_job_count", { kind: "Gauge", labels }]]), states };
}

/** The API's metrics as its code registers them, read from a registry of their own. */
export const apiRegistry = new Registry();
createHttpMetrics({ registry: apiRegistry });
readCacheCounter(apiRegistry);
const kindOf = (m: Metric): Kind =>
  m instanceof Histogram ? "Histogram" : m instanceof Counter ? "Counter" : m instanceof Gauge ? "Gauge" : m instanceof Summary ? "Summary" : "unknown";
// prom-client sets `name` and `labelNames` on every metric; its types leave them out.
const apiMetrics = () =>
  new Map(
    (apiRegistry.getMetricsAsArray() as unknown as Metric[]).map((m): [string, Declared] => {
      const { name, labelNames } = m as unknown as { name: string; labelNames: string[] };
      return [name, { kind: kindOf(m), labels: [...labelNames] }];
    }),
  );
const readCacheSource = read("usecases/read-cache.ts");
export const ponder = ponderMetrics();
export const bullmq = bullmqMetrics();
export const known = new Map<string, Declared>([
  ...apiMetrics(),
  ...workerMetrics(),
  ...PROCESS_METRICS.map((n): [string, Declared] => [n, { kind: "Gauge", labels: [] }]),
  ...bullmq.metrics,
  ...ponder,
]);

/** Label values the dashboard may match on, where the code lists them. */
export const knownValues: Record<string, Record<string, string[]>> = {
  bullmq_job_count: { state: bullmq.states },
  api_read_cache_total: {
    result: [...(/type CacheResult\s*=([^;]*);/.exec(readCacheSource)?.[1] ?? "").matchAll(/"(\w+)"/g)].map((v) => v[1]!),
    route: [...(/count\(route:([^,]*),/.exec(readCacheSource)?.[1] ?? "").matchAll(/"(\w+)"/g)].map((v) => v[1]!),
  },
};

/** A series name the dashboard may query: a declared name, or a histogram's _bucket/_sum/_count. */
export function series(name: string): { base: string; labels: string[] } | undefined {
  const direct = known.get(name);
  if (direct && direct.kind !== "Histogram" && direct.kind !== "Summary") return { base: name, labels: direct.labels };
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  const base = m && known.get(m[1]!);
  if (!m || !base || (base.kind !== "Histogram" && base.kind !== "Summary")) return undefined;
  return { base: m[1]!, labels: m[2] === "bucket" ? [...base.labels, "le"] : base.labels };
}

// Labels Prometheus adds to every scraped series.
export const TARGET_LABELS = ["job", "instance"];

const PROMQL_WORDS = new Set(
  (
    "sum min max avg group stddev stdvar count count_values bottomk topk quantile limitk limit_ratio " +
    "by without on ignoring group_left group_right offset bool and or unless inf nan " +
    "abs absent absent_over_time ceil changes clamp clamp_max clamp_min day_of_month day_of_week day_of_year days_in_month " +
    "delta deriv exp floor histogram_avg histogram_count histogram_fraction histogram_quantile histogram_stddev histogram_stdvar " +
    "histogram_sum holt_winters double_exponential_smoothing hour idelta increase irate label_join label_replace ln log10 log2 " +
    "minute month predict_linear rate resets round scalar sgn sort sort_desc sort_by_label sort_by_label_desc sqrt time timestamp vector year " +
    "avg_over_time min_over_time max_over_time sum_over_time count_over_time quantile_over_time stddev_over_time stdvar_over_time " +
    "last_over_time present_over_time mad_over_time acos acosh asin asinh atan atanh cos cosh sin sinh tan tanh deg rad pi"
  ).split(" "),
);

type Use = { metric: string; matchers: { label: string; op: string; value: string }[] };

/** The metric names and label references of one PromQL expression. */
export function parse(expr: string): { uses: Use[]; bare: string[]; grouping: string[] } {
  const uses: Use[] = [];
  for (const m of expr.matchAll(/([A-Za-z_:][\w:]*)\s*\{([^}]*)\}/g)) {
    const matchers = [...m[2]!.matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map((x) => ({ label: x[1]!, op: x[2]!, value: x[3]! }));
    uses.push({ metric: m[1]!, matchers });
  }
  let rest = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\$\{?\w+\}?/g, "");
  const grouping: string[] = [];
  rest = rest.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g, (_, _kw, list: string) => {
    grouping.push(
      ...list
        .split(",")
        .map((l) => l.trim())
        .filter(Boolean),
    );
    return " ";
  });
  // Numbers first (with their units), so that 1e9 or 5m yield no identifier.
  const bare = [...rest.matchAll(/\d+(?:\.\d+)?(?:e[+-]?\d+)?[a-z]*|([A-Za-z_:][\w:]*)/gi)]
    .map((t) => t[1])
    .filter((t): t is string => !!t && !PROMQL_WORDS.has(t));
  return { uses, bare, grouping };
}

/** Problems of one expression: unknown metrics, labels a metric does not have, values the code never writes. */
export function problems(expr: string, where: string, { requireJob = true } = {}): string[] {
  const out: string[] = [];
  const { uses, bare, grouping } = parse(expr);
  const inExpr = new Set(TARGET_LABELS);
  for (const name of bare) {
    const s = series(name);
    if (!s) out.push(`${where}: unknown metric ${name}`);
    else s.labels.forEach((l) => inExpr.add(l));
  }
  // Every series is filtered by job: the process metrics of other jobs share the names.
  if (requireJob) for (const name of bare) if (series(name) && !uses.some((u) => u.metric === name)) out.push(`${where}: ${name} without a job matcher`);
  for (const { metric, matchers } of uses) {
    const s = series(metric);
    if (!s) continue;
    if (requireJob && !matchers.some((m) => m.label === "job")) out.push(`${where}: ${metric} without a job matcher`);
    for (const { label, op, value } of matchers) {
      if (!TARGET_LABELS.includes(label) && !s.labels.includes(label)) out.push(`${where}: ${metric} has no label ${label}`);
      const allowed = knownValues[s.base]?.[label];
      // Exact values and plain alternations (a|b) are checked; patterns such as 5.. are not.
      if (!allowed || value.includes("$") || (op === "=~" && !/^[\w|-]+$/.test(value))) continue;
      for (const v of op === "=~" ? value.split("|") : [value]) if (!allowed.includes(v)) out.push(`${where}: ${metric}{${label}} is never "${v}"`);
    }
  }
  for (const label of grouping) if (!inExpr.has(label)) out.push(`${where}: grouping by ${label}, which no metric of the expression has`);
  return out;
}
