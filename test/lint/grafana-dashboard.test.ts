// ops/grafana/agent-interface.json queries metrics by name, and Prometheus answers a misspelt or
// renamed metric with an empty panel, not an error. The names and labels the dashboard may use are
// read from the code that declares them (the API's, the worker's, Ponder's and BullMQ's sources in
// node_modules), so a rename on either side fails here.
import { describe, expect, it } from "vitest";
import {
  apiRegistry,
  bullmq,
  declarations,
  known,
  knownValues,
  parse,
  PROCESS_METRICS,
  ponder,
  problems,
  promClientSource,
  read,
  series,
  TARGET_LABELS,
} from "../helpers/promql-metrics.js";

type Panel = {
  type: string;
  title?: string;
  datasource?: { type?: string; uid?: string };
  targets?: { expr?: string; legendFormat?: string }[];
  panels?: Panel[];
};
const dashboard = JSON.parse(read("ops/grafana/agent-interface.json")) as {
  uid: string;
  title: string;
  __inputs: { name: string; type: string; pluginId: string }[];
  panels: Panel[];
  templating: { list: { name: string; datasource?: { uid?: string }; definition?: string }[] };
};
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== "row");
const DS = "${DS_PROMETHEUS}";

describe("ops/grafana/agent-interface.json", () => {
  it("reads the metric declarations it checks against", () => {
    // A parser that found nothing would let only an empty dashboard pass.
    expect(ponder.size).toBeGreaterThan(20);
    expect(ponder.get("ponder_indexing_function_duration")).toEqual({ kind: "Histogram", labels: ["chain", "event"] });
    expect(known.get("http_request_duration_seconds")?.kind).toBe("Histogram");
    expect(known.get("api_read_cache_total")?.labels).toEqual(["route", "result"]);
    expect(known.get("bullmq_job_count")?.labels).toEqual(["queue", "state"]);
    expect(bullmq.states).toEqual(expect.arrayContaining(["waiting", "active", "delayed", "failed", "completed", "prioritized", "waiting-children"]));
    const promClient = promClientSource();
    for (const name of PROCESS_METRICS) expect(promClient, name).toContain(`'${name}'`);
    expect(knownValues.api_read_cache_total!.result).toEqual(["hit", "miss", "bypass"]);
    expect(knownValues.api_read_cache_total!.route).toEqual(["accounts", "activity"]);
  });

  it("is importable with a Prometheus input", () => {
    expect(dashboard.uid).toBe("agent-interface");
    expect(dashboard.title).toBe("Agent interface");
    expect(dashboard.__inputs).toContainEqual(expect.objectContaining({ name: "DS_PROMETHEUS", type: "datasource", pluginId: "prometheus" }));
    for (const v of dashboard.templating.list) if (v.datasource) expect(v.datasource.uid, v.name).toBe(DS);
  });

  it("gives every panel the input datasource, a title and a query", () => {
    expect(panels.length).toBeGreaterThan(10);
    for (const p of panels) {
      expect(p.title, JSON.stringify(p).slice(0, 80)).toBeTruthy();
      expect(p.datasource?.uid, p.title).toBe(DS);
      expect(
        p.targets?.some((t) => t.expr?.trim()),
        p.title,
      ).toBe(true);
    }
  });

  it("queries only metrics and labels the code declares", () => {
    const found: string[] = [];
    const used = new Set<string>();
    for (const p of panels) {
      for (const t of p.targets ?? []) {
        if (!t.expr) continue;
        found.push(...problems(t.expr, p.title!));
        const { bare, grouping } = parse(t.expr);
        bare.forEach((n) => used.add(n));
        // A legend {{label}} that the result does not carry renders empty. After a `by (…)` only those labels are left.
        const carried = new Set(grouping.length > 0 ? grouping : [...TARGET_LABELS, ...bare.flatMap((n) => series(n)?.labels ?? [])]);
        for (const [, label] of (t.legendFormat ?? "").matchAll(/\{\{\s*(\w+)\s*\}\}/g))
          if (!carried.has(label!)) found.push(`${p.title}: legend {{${label}}}`);
      }
    }
    for (const v of dashboard.templating.list) {
      const m = v.definition && /^label_values\((?:(.*),\s*)?(\w+)\)$/.exec(v.definition);
      if (!v.definition) continue;
      if (!m) found.push(`variable ${v.name}: unparsed ${v.definition}`);
      else if (m[1]) for (const name of parse(m[1]).bare) if (!series(name)) found.push(`variable ${v.name}: unknown metric ${name}`);
    }
    expect(found).toEqual([]);
    // The families the dashboard exists for are all queried.
    for (const name of [
      "http_requests_total",
      "http_long_poll_duration_seconds_bucket",
      "api_read_cache_total",
      "bullmq_job_count",
      "agent_worker_jobs_total",
      "agent_grading_lag_seconds",
      "agent_job_oldest_active_seconds",
      "agent_job_deadline_exceeded_total",
      "process_cpu_seconds_total",
    ])
      expect(used).toContain(name);
    expect([...used].filter((n) => n.startsWith("ponder_")).length).toBeGreaterThan(10);
  });

  it("shows 0, not no data, on counter panels: every sum of a counter's rate falls back to 0", () => {
    const bare: string[] = [];
    for (const p of panels)
      for (const t of p.targets ?? []) {
        const expr = t.expr ?? "";
        if (!/^\(?sum( by \([^)]*\))? ?\((rate|increase)\(/.test(expr) || expr.startsWith("histogram_quantile")) continue;
        // A process's own CPU stays "no data" while the process is down: 0 would read as idle.
        if (expr.includes("process_cpu_seconds_total")) continue;
        // A plain sum: `or vector(0)`; by labels: `or on() vector(0)` (0 only when no series at all); a ratio: its numerator `or` the denominator * 0.
        if (!/ or (on\(\) )?vector\(0\)$/.test(expr) && !/^\(.* or .* \* 0\) \/ /.test(expr)) bare.push(`${p.title}: ${expr}`);
      }
    expect(bare).toEqual([]);
  });

  it("times long polls apart from the other requests' latency", () => {
    expect(known.get("http_long_poll_duration_seconds")).toEqual({ kind: "Histogram", labels: ["method", "route", "status"] });
    const longPolls = apiRegistry.getSingleMetric("http_long_poll_duration_seconds") as unknown as { upperBounds: number[] };
    const buckets = longPolls.upperBounds;
    // MAX_WAIT_MS is 30 s: a long poll that waits it out lands below the top bucket, not in +Inf.
    expect(Math.max(...buckets)).toBeGreaterThan(30);
    expect(panels.some((p) => p.targets?.some((t) => t.expr?.includes("http_long_poll_duration_seconds_bucket")))).toBe(true);
  });

  it("catches an unknown metric, label or value", () => {
    expect(problems('sum(rate(http_request_total{job=~"$job"}[5m]))', "t")).toEqual(["t: unknown metric http_request_total"]);
    expect(problems('sum by (queue) (bullmq_job_count{job=~"$job", status="waiting"})', "t")).toEqual(["t: bullmq_job_count has no label status"]);
    expect(problems('max by (queue) (bullmq_job_count{job=~"$job", state=~"waiting|queued"})', "t")).toEqual(['t: bullmq_job_count{state} is never "queued"']);
    expect(problems('sum by (pool) (rate(ponder_rpc_request_error_total{job=~"$job"}[5m]))', "t")).toEqual([
      "t: grouping by pool, which no metric of the expression has",
    ]);
    expect(problems('ponder_indexing_function_duration_bucket{job="p", le="+Inf"}', "t")).toEqual([]);
    expect(problems('ponder_sync_block_bucket{job="p"}', "t")).toEqual(["t: unknown metric ponder_sync_block_bucket"]);
    expect(problems("process_cpu_seconds_total", "t")).toEqual(["t: process_cpu_seconds_total without a job matcher"]);
    const worker =
      'new Counter({ name: "a_total", help: "…", labelNames: ["queue", "outcome"] as const, registers: [r] });\nnew Histogram({ name: "b_seconds", help: "…", labelNames: ["queue"], buckets: [1] });';
    expect([...declarations(worker)]).toEqual([
      ["a_total", { kind: "Counter", labels: ["queue", "outcome"] }],
      ["b_seconds", { kind: "Histogram", labels: ["queue"] }],
    ]);
  });
});
