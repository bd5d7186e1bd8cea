// ops/prometheus/alerts.yml: Prometheus answers a misspelt or renamed metric with an alert that never
// fires, not an error. Every rule is well formed, and every metric and label it names is one the code
// declares (test/helpers/promql-metrics.ts reads the declarations); the liveness alerts of issue 51 are there.
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { known, parse, problems, read } from "../helpers/promql-metrics.js";

type Rule = { alert?: string; record?: string; expr?: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
const file = parseYaml(read("ops/prometheus/alerts.yml")) as { groups: { name: string; rules: Rule[] }[] };
const rules = file.groups.flatMap((g) => g.rules);

describe("ops/prometheus/alerts.yml", () => {
  it("is a Prometheus rule file: named groups of alerts, each with an expression, a severity and a summary", () => {
    expect(file.groups.length).toBeGreaterThan(0);
    for (const g of file.groups) expect(g.name).toBeTruthy();
    for (const r of rules) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(r.expr?.trim(), r.alert).toBeTruthy();
      expect(["warning", "critical"], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      if (r.for !== undefined) expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it("names only metrics and labels the code declares", () => {
    expect(rules.flatMap((r) => problems(r.expr!, r.alert!, { requireJob: false }))).toEqual([]);
    // The checker does catch a wrong name here.
    expect(problems("max(agent_grading_lag) > 300", "t", { requireJob: false })).toEqual(["t: unknown metric agent_grading_lag"]);
  });

  it("alerts on grading lag over 5 minutes, a job past its deadline and the index over 60 s behind the chain", () => {
    const uses = (metric: string) => rules.filter((r) => parse(r.expr!).bare.includes(metric)).map((r) => r.expr!.replace(/\s+/g, " "));
    expect(uses("agent_grading_lag_seconds")).toEqual(["max(agent_grading_lag_seconds) > 300"]);
    expect(uses("agent_job_deadline_exceeded_total")).toHaveLength(1);
    expect(uses("agent_job_oldest_active_seconds")[0]).toMatch(/> on \(queue\) max by \(queue\) \(agent_job_deadline_seconds\)$/);
    expect(uses("ponder_indexing_timestamp")[0]).toMatch(/ponder_sync_block_timestamp.* > 60$/);
    for (const name of ["agent_grading_lag_seconds", "agent_job_oldest_active_seconds", "agent_job_deadline_exceeded_total", "agent_job_deadline_seconds"])
      expect(known.has(name), name).toBe(true);
  });
});
