// A worker's own health and metrics listener (METRICS_HOST:WORKER_METRICS_PORT): /health answers 200
// while every queue's worker runs and Redis answers, 503 otherwise (for a process manager or a
// balancer's check); /ready is /health and, with report cards on, 503 while grading lags over 10
// minutes (a pass that hangs); /metrics is the process's metrics, its jobs by queue and outcome, the
// jobs failed at their deadline, each queue's oldest active job, the grading lag, and the queues'
// counts from BullMQ's own export.
import { createServer, type Server } from "node:http";
import type { Worker } from "bullmq";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { collectProcessMetrics } from "../adapters/process-metrics.js";
import { runWithDeadline } from "../adapters/deadline.js";
import type { Logger } from "../adapters/logger.js";
import { isDeadlineExceeded } from "./deadline.js";

/** /ready answers 503 while grading lags more than this (seconds). */
export const READY_GRADING_LAG_S = 600;
/** The grading lag is read at most this often (scrapes and probes share it), and gives up after LAG_READ_MS. */
const LAG_EVERY_MS = 5000;
const LAG_READ_MS = 3000;

export type WorkerMetricsOptions = {
  workers: readonly Worker[];
  /** The queues' exposition (adapters/queue/metrics.ts). */
  queueText: () => Promise<string>;
  /** Per queue, its oldest active job's age in seconds (adapters/queue/metrics.ts). */
  oldestActive?: () => Promise<Record<string, number>>;
  /** Each queue's job deadline (workers/deadline.ts), exported beside the ages for the alert. */
  deadlinesMs?: Readonly<Record<string, number>>;
  /** The grading lag in seconds (usecases/report-card/grading-lag.ts); unset when report cards are off. */
  gradingLag?: () => Promise<number>;
  /** True while Redis answers (the workers' connection is ready). */
  redisReady: () => boolean;
  host: string;
  port: number;
  logger: Logger;
  /** More metrics registered on the worker's registry (the standbys' lag: readTargetMetrics). */
  more?: (registry: Registry) => void;
};

/** The jobs' counters and gauges: by queue and outcome, their durations, those failed at their deadline, the oldest active. */
function jobMetrics(registry: Registry, { workers, oldestActive, deadlinesMs }: Pick<WorkerMetricsOptions, "workers" | "oldestActive" | "deadlinesMs">) {
  const jobs = new Counter({
    name: "agent_worker_jobs_total",
    help: "Jobs this worker finished, by queue and outcome",
    labelNames: ["queue", "outcome"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "agent_worker_job_duration_seconds",
    help: "Time from a job's start to its end on this worker",
    labelNames: ["queue"],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const deadlineExceeded = new Counter({
    name: "agent_job_deadline_exceeded_total",
    help: "Jobs this worker failed at their queue's deadline (workers/deadline.ts), by queue",
    labelNames: ["queue"],
    registers: [registry],
  });
  new Gauge({
    name: "agent_job_oldest_active_seconds",
    help: "How long each queue's oldest active job has run, on any worker (0 with none)",
    labelNames: ["queue"],
    registers: [registry],
    async collect() {
      if (!oldestActive) return;
      for (const [queue, age] of Object.entries(await oldestActive())) this.labels(queue).set(age);
    },
  });
  const deadlines = new Gauge({ name: "agent_job_deadline_seconds", help: "Each queue's job deadline", labelNames: ["queue"], registers: [registry] });
  for (const [queue, ms] of Object.entries(deadlinesMs ?? {})) deadlines.labels(queue).set(ms / 1000);
  for (const worker of workers) {
    const queue = worker.name;
    const observe = (job: { processedOn?: number; finishedOn?: number } | undefined, outcome: "completed" | "failed") => {
      jobs.labels(queue, outcome).inc();
      if (job?.processedOn && job.finishedOn) duration.labels(queue).observe((job.finishedOn - job.processedOn) / 1000);
    };
    worker.on("completed", (job) => observe(job, "completed"));
    worker.on("failed", (job, error) => {
      observe(job, "failed");
      if (isDeadlineExceeded(error)) deadlineExceeded.labels(queue).inc();
    });
  }
}

/** The grading lag, read at most every LAG_EVERY_MS (a scrape and the readiness probes share one read), as a gauge too. */
function gradingLagReader(registry: Registry, gradingLag: WorkerMetricsOptions["gradingLag"]) {
  let lag: { at: number; value: Promise<number> } | undefined;
  const readLag = (): Promise<number> | undefined => {
    if (!gradingLag) return undefined;
    if (!lag || Date.now() - lag.at > LAG_EVERY_MS) {
      // Under a deadline of its own: a read that never answers fails /ready instead of holding the probe.
      const value = runWithDeadline("the grading lag's read", LAG_READ_MS, () => gradingLag());
      value.catch(() => (lag = undefined));
      lag = { at: Date.now(), value };
    }
    return lag.value;
  };
  new Gauge({
    name: "agent_grading_lag_seconds",
    help: "How long the oldest indexed call the last whole grading pass did not cover has waited (0 when none, NaN when unreadable)",
    registers: [registry],
    async collect() {
      const value = readLag();
      // A failed read is NaN (unknown, not 0), and the other metrics still answer; /ready says why.
      if (value)
        await value.then(
          (v) => this.set(v),
          () => this.set(Number.NaN),
        );
    },
  });
  return readLag;
}

export function startWorkerMetrics({
  workers,
  queueText,
  oldestActive,
  deadlinesMs,
  gradingLag,
  redisReady,
  host,
  port,
  logger,
  more,
}: WorkerMetricsOptions): Server {
  const registry = new Registry();
  collectProcessMetrics(registry);
  more?.(registry);
  jobMetrics(registry, { workers, oldestActive, deadlinesMs });
  const readLag = gradingLagReader(registry, gradingLag);

  const server = createServer((req, res) => {
    const path = req.url?.split("?")[0];
    if (req.method !== "GET") return void res.writeHead(405).end();
    const health = () => {
      const stopped = workers.filter((w) => !w.isRunning()).map((w) => w.name);
      return { ok: stopped.length === 0 && redisReady(), body: { redis: redisReady() ? "ready" : "down", stopped } };
    };
    const answer = (ok: boolean, body: Record<string, unknown>) =>
      void res.writeHead(ok ? 200 : 503, { "Content-Type": "application/json" }).end(JSON.stringify({ status: ok ? "ok" : "unavailable", ...body }));
    if (path === "/health") {
      const { ok, body } = health();
      return answer(ok, body);
    }
    if (path === "/ready") {
      const { ok, body } = health();
      const lagging = readLag();
      if (!ok || !lagging) return answer(ok, ok ? body : { ...body, reason: "a worker is stopped or Redis is down" });
      lagging.then(
        (seconds) => {
          const late = seconds > READY_GRADING_LAG_S;
          const reason = `grading lags ${Math.round(seconds)} s (over ${READY_GRADING_LAG_S} s): an indexed call waits for a grading pass; see agent_job_oldest_active_seconds{queue="grading"}`;
          answer(!late, { ...body, gradingLagSeconds: Math.round(seconds), ...(late ? { reason } : {}) });
        },
        (error: Error) => answer(false, { ...body, reason: `the grading lag cannot be read: ${error.message}` }),
      );
      return;
    }
    if (path !== "/metrics") return void res.writeHead(404).end();
    Promise.all([registry.metrics(), queueText()]).then(
      ([own, queues]) => res.writeHead(200, { "Content-Type": registry.contentType }).end(own + queues),
      () => res.writeHead(500).end(),
    );
  });
  server.listen(port, host, () => logger.info({ host, port }, "worker health and metrics listening"));
  // Not worth stopping the worker for: a taken port is a warning (set WORKER_METRICS_PORT per process).
  server.on("error", (error: NodeJS.ErrnoException) =>
    logger.warn({ err: { code: error.code, message: error.message } }, "worker metrics listener failed; /health and /metrics are not served"),
  );
  return server;
}
