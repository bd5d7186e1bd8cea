// `npm run worker`: every queue's processor (prepare, aggregator under the route budget, backtest, scan, grading, purge) in a process of its own.
// Checks Postgres and Redis (one line and exit 1 when either is unreachable) and stops gracefully on
// SIGTERM/SIGINT: the worker finishes its running jobs, then the connections close.
import { hostname } from "node:os";
import { type Queue, Worker, type Job, type WorkerOptions } from "bullmq";
import { newRedis } from "../adapters/redis.js";
import { config, rpcUrl } from "../adapters/config.js";
import { createChainClient } from "../adapters/chain/client.js";
import { loadDeployments } from "../adapters/chain/deployments.js";
import { PREPARE_QUEUE } from "../usecases/prepare/job.js";
import { directAggregator } from "../adapters/chain/aggregator-direct.js";
import { createJobClient } from "../adapters/queue/request-reply.js";
import { AGGREGATOR_QUEUE, queuedAggregator } from "../usecases/prepare/aggregator-queue.js";
import { aggregatorProcessor, aggregatorWorkerOptions } from "./processors/aggregator.js";
import { prepareProcessor } from "./processors/prepare.js";
import { BACKTEST_QUEUE, SCAN_QUEUE } from "../usecases/backtest-runs/jobs.js";
import { chainFees, runScansNow, scheduleScans } from "../usecases/backtest-runs/schedule.js";
import { genesisHash } from "../adapters/db/index-readiness.js";
import { backtestProcessor } from "./processors/backtest.js";
import { scanProcessor } from "./processors/scan.js";
import { gradingProcessor, scheduleGrading } from "./processors/grading.js";
import { purgeProcessor, schedulePurge } from "./processors/purge.js";
import { GRADING_QUEUE, PURGE_QUEUE, QUEUE_NAMES, type QueueName } from "../usecases/queues.js";
import { queueMetrics } from "../adapters/queue/metrics.js";
import { serviceQueue } from "../adapters/queue/options.js";
import { startWorkerMetrics } from "./metrics.js";
import { JOB_DEADLINES_MS, withDeadline } from "./deadline.js";
import { gradingLagSeconds } from "../usecases/report-card/grading-lag.js";
import { startService, watchIndex } from "../boot/start-up.js";
import { readTargetMetrics } from "../adapters/db/read-targets.js";
import { stopOnSignals } from "../boot/shutdown.js";

const SHUTDOWN_GRACE_MS = 15_000;

const { logger, db, reads, chain, readTargets } = await startService("worker");
const deployments = loadDeployments(config.DEPLOYMENTS_FILE);
const client = createChainClient(rpcUrl(config));

// Workers block on Redis: their connection must wait, never give up on a request.
const connection = newRedis(config.REDIS_URL, config.REDIS_SENTINEL, { maxRetriesPerRequest: null });
connection.on("error", (error) => logger.warn({ err: error.message }, "redis"));
const bull = { connection, prefix: `${config.REDIS_PREFIX}:bull` };

// The aggregator route budget: the `aggregator` queue's limiter. Prepares spend it through jobs too.
const aggregator = directAggregator(client, deployments);
// A backlog longer than the budget serves within the wait is refused at once (429 BUSY), not queued to time out.
const aggregatorJobs = createJobClient({
  redisUrl: config.REDIS_URL,
  sentinel: config.REDIS_SENTINEL,
  prefix: bull.prefix,
  maxWaiting: Math.max(1, Math.ceil((config.AGGREGATOR_BUDGET_PER_SECOND * config.AGGREGATOR_WAIT_MS) / 1000)),
});
const workers: Worker[] = [];
/** A worker of `queue`: its processor under the queue's deadline (workers/deadline.ts), its errors logged. */
function work(
  queue: QueueName,
  processor: (job: Job) => Promise<unknown>,
  { reply, ...options }: Omit<WorkerOptions, "connection" | "prefix"> & { reply?: "api-error" | "message" } = {},
): Worker {
  const worker = new Worker(queue, withDeadline(queue, JOB_DEADLINES_MS[queue], processor, { logger, reply }), { ...bull, ...options });
  worker.on("error", (error) => logger.warn({ err: error.message, queue }, "worker"));
  workers.push(worker);
  return worker;
}
const queues: Queue[] = [];
/** A queue this process schedules repeatable jobs on. */
function scheduled(queue: QueueName): Queue {
  const q = serviceQueue(queue, bull);
  queues.push(q);
  return q;
}

work(AGGREGATOR_QUEUE, aggregatorProcessor(aggregator, logger), { reply: "message", ...aggregatorWorkerOptions(config.AGGREGATOR_BUDGET_PER_SECOND) });
const budgeted = aggregator ? queuedAggregator(aggregatorJobs, aggregator.address, config.AGGREGATOR_WAIT_MS) : undefined;

const prepareWorker = work(
  PREPARE_QUEUE,
  prepareProcessor(
    {
      db,
      reads,
      deployments,
      client,
      now: () => new Date(),
      baseUrl: config.BASE_URL,
      logger,
      agentAccounts: config.AGENT_ACCOUNTS === "on",
      signRequestsPerClient: config.SIGN_REQUESTS_PER_CLIENT,
      aggregator: budgeted,
      viewsSchema: config.VIEWS_SCHEMA,
    },
    (jobId) => aggregatorJobs.isGone(PREPARE_QUEUE, jobId),
    chain,
  ),
  // `name` is recorded on every job it runs (BullMQ's processedBy): which replica ran what.
  { reply: "api-error", concurrency: 8, name: `worker-${hostname()}-${process.pid}` },
);
prepareWorker.on("ready", () => logger.info({ queue: PREPARE_QUEUE, prefix: bull.prefix }, "worker ready"));

// Backtests and planners (request-reply, CPU-bound: 2 at a time), and the repeatable scans (grid
// tokens, ladder tokens, the strategy-finder board; one at a time, every 10 minutes, scheduled here,
// and at once whenever the index becomes ready; a failed one is retried 30 s later).
work(BACKTEST_QUEUE, backtestProcessor({ reads, logger, viewsSchema: config.VIEWS_SCHEMA }), { reply: "api-error", concurrency: 2 });
// Scans read the index only once it is ready, and carry the chain they were made on (its genesis hash).
const index = watchIndex(client, logger, "worker", 2000);
const scanChainOf = async () => index.chain() ?? genesisHash(client);
const scanProcess = scanProcessor({
  db,
  reads,
  deployments,
  now: () => new Date(),
  fees: chainFees(client, deployments),
  logger,
  chain: scanChainOf,
  indexReady: () => index.ready(),
});
work(SCAN_QUEUE, scanProcess, { concurrency: 1, lockDuration: 120_000 });
const scanQueue = scheduled(SCAN_QUEUE);
// The index became ready, or is a new one (re-created views, another chain): every scan now, not at the next tick.
index.onChange((state) => {
  if (!state.ready || !state.generation) return;
  runScansNow(scanQueue, `${state.generation}-${(state.chain ?? "unknown").slice(0, 18)}`).catch((error) =>
    logger.warn({ err: (error as Error).message }, "scans on index ready"),
  );
});
void index.start();

// The report card: match filings to mined calls and grade them, every minute, one pass at a time.
const grading = gradingProcessor({ db, reads, now: () => new Date(), logger, indexReady: () => index.ready() });
work(GRADING_QUEUE, grading, { concurrency: 1, lockDuration: 120_000 });
// Retention: expired sign-ins, sign requests, cursors, unmatched filings and old run logs, every 10 minutes.
work(PURGE_QUEUE, purgeProcessor({ db, now: () => new Date(), logger }), { concurrency: 1 });

// The repeatable jobs. A Redis that comes back without its data (restarted with no persistence, as the soak
// of issue 52 does) has lost the schedules too: grading stopped for good until the worker restarted. So
// every reconnection upserts them again (upsertJobScheduler keeps an existing schedule as it is).
const gradingQueue = config.AGENT_REPORT_CARDS === "on" ? scheduled(GRADING_QUEUE) : undefined;
const purgeQueue = scheduled(PURGE_QUEUE);
const schedules = [() => scheduleScans(scanQueue), ...(gradingQueue ? [() => scheduleGrading(gradingQueue)] : []), () => schedulePurge(purgeQueue)];
const upsertSchedules = () => Promise.all(schedules.map((s) => s().catch((error) => logger.warn({ err: (error as Error).message }, "schedule"))));
await upsertSchedules();
connection.on("ready", () => {
  logger.info({}, "redis reconnected: schedules upserted again");
  void upsertSchedules();
});

// Health and metrics of this worker, with every queue's counts.
const counts = queueMetrics({ redisUrl: config.REDIS_URL, sentinel: config.REDIS_SENTINEL, prefix: bull.prefix, queues: QUEUE_NAMES });
const metricsServer = startWorkerMetrics({
  workers,
  queueText: counts.text,
  oldestActive: counts.oldestActiveSeconds,
  deadlinesMs: JOB_DEADLINES_MS,
  gradingLag: config.AGENT_REPORT_CARDS === "on" ? () => gradingLagSeconds({ db, reads, now: () => new Date() }) : undefined,
  redisReady: () => connection.status === "ready",
  host: config.METRICS_HOST,
  port: config.WORKER_METRICS_PORT,
  logger,
  more: readTargets && ((registry) => readTargetMetrics(registry, readTargets)),
});

stopOnSignals({
  logger,
  graceMs: SHUTDOWN_GRACE_MS,
  stillBusy: "jobs still running",
  close: async () => {
    metricsServer.close();
    await Promise.all(workers.map((w) => w.close()));
    await index.close();
    await Promise.all(queues.map((q) => q.close()));
    await aggregatorJobs.close();
    await counts.close();
    await Promise.allSettled([db.destroy(), reads.destroy(), connection.quit()]);
  },
});
