// A worker's own health and metrics listener (METRICS_HOST:WORKER_METRICS_PORT): /health answers 200
// while every queue's worker runs and Redis answers, 503 otherwise (for a process manager or a
// balancer's check); /metrics is the process's metrics, its jobs by queue and outcome, and the queues'
// counts from BullMQ's own export.
import { createServer, type Server } from "node:http";
import type { Worker } from "bullmq";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { Logger } from "../adapters/logger.js";

export type WorkerMetricsOptions = {
  workers: readonly Worker[];
  /** The queues' exposition (adapters/queue/metrics.ts). */
  queueText: () => Promise<string>;
  /** True while Redis answers (the workers' connection is ready). */
  redisReady: () => boolean;
  host: string;
  port: number;
  logger: Logger;
};

export function startWorkerMetrics({ workers, queueText, redisReady, host, port, logger }: WorkerMetricsOptions): Server {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
  for (const worker of workers) {
    const queue = worker.name;
    const observe = (job: { processedOn?: number; finishedOn?: number } | undefined, outcome: "completed" | "failed") => {
      jobs.labels(queue, outcome).inc();
      if (job?.processedOn && job.finishedOn) duration.labels(queue).observe((job.finishedOn - job.processedOn) / 1000);
    };
    worker.on("completed", (job) => observe(job, "completed"));
    worker.on("failed", (job) => observe(job, "failed"));
  }

  const server = createServer((req, res) => {
    const path = req.url?.split("?")[0];
    if (req.method !== "GET") return void res.writeHead(405).end();
    if (path === "/health") {
      const stopped = workers.filter((w) => !w.isRunning()).map((w) => w.name);
      const ok = stopped.length === 0 && redisReady();
      const body = { status: ok ? "ok" : "unavailable", redis: redisReady() ? "ready" : "down", stopped };
      return void res.writeHead(ok ? 200 : 503, { "Content-Type": "application/json" }).end(JSON.stringify(body));
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
