// `npm run worker`: runs the job queues' processors (`prepare`, and `aggregator` under the route budget) as a process of its own.
// Checks Postgres and Redis (one line and exit 1 when either is unreachable) and stops gracefully on
// SIGTERM/SIGINT: the worker finishes its running jobs, then the connections close.
import { hostname } from "node:os";
import { Worker, Queue } from "bullmq";
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
import { GRADING_QUEUE, PURGE_QUEUE, QUEUE_NAMES } from "../usecases/queues.js";
import { queueMetrics } from "../adapters/queue/metrics.js";
import { queueStreams } from "../adapters/queue/options.js";
import { startWorkerMetrics } from "./metrics.js";
import { JOB_DEADLINES_MS, withDeadline } from "./deadline.js";
import { gradingLagSeconds } from "../usecases/report-card/grading-lag.js";
import { startService, watchIndex } from "../adapters/start-up.js";
import { readTargetMetrics } from "../adapters/db/read-targets.js";
import { stopOnSignals } from "../adapters/shutdown.js";

const SHUTDOWN_GRACE_MS = 15_000;

const { logger, db, reads, chain, readTargets } = await startService("worker");
const deployments = loadDeployments(config.DEPLOYMENTS_FILE);
const client = createChainClient(rpcUrl(config));

// Workers block on Redis: their connection must wait, never give up on a request.
const connection = newRedis(config.REDIS_URL, config.REDIS_SENTINEL, { maxRetriesPerRequest: null });
connection.on("error", (error) => logger.warn({ err: error.message }, "redis"));

// The aggregator route budget: the `aggregator` queue's limiter. Prepares spend it through jobs too.
const aggregator = directAggregator(client, deployments);
// A backlog longer than the budget serves within the wait is refused at once (429 BUSY), not queued to time out.
const aggregatorJobs = createJobClient({
  redisUrl: config.REDIS_URL,
  sentinel: config.REDIS_SENTINEL,
  prefix: `${config.REDIS_PREFIX}:bull`,
  maxWaiting: Math.max(1, Math.ceil((config.AGGREGATOR_BUDGET_PER_SECOND * config.AGGREGATOR_WAIT_MS) / 1000)),
});
// Every processor runs under its queue's deadline (workers/deadline.ts).
const aggregatorWorker = new Worker(
  AGGREGATOR_QUEUE,
  withDeadline(AGGREGATOR_QUEUE, JOB_DEADLINES_MS.aggregator, aggregatorProcessor(aggregator, logger), { logger, reply: "message" }),
  {
    connection,
    prefix: `${config.REDIS_PREFIX}:bull`,
    ...aggregatorWorkerOptions(config.AGGREGATOR_BUDGET_PER_SECOND),
  },
);
aggregatorWorker.on("error", (error) => logger.warn({ err: error.message }, "aggregator worker"));
const budgeted = aggregator ? queuedAggregator(aggregatorJobs, aggregator.address, config.AGGREGATOR_WAIT_MS) : undefined;

const worker = new Worker(
  PREPARE_QUEUE,
  withDeadline(
    PREPARE_QUEUE,
    JOB_DEADLINES_MS.prepare,
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
    { logger, reply: "api-error" },
  ),
  // `name` is recorded on every job it runs (BullMQ's processedBy): which replica ran what.
  { connection, prefix: `${config.REDIS_PREFIX}:bull`, concurrency: 8, name: `worker-${hostname()}-${process.pid}` },
);
worker.on("error", (error) => logger.warn({ err: error.message }, "worker"));
worker.on("ready", () => logger.info({ queue: PREPARE_QUEUE, prefix: `${config.REDIS_PREFIX}:bull` }, "worker ready"));

// Backtests and planners (request-reply, CPU-bound: 2 at a time), and the repeatable scans (grid
// tokens, ladder tokens, the strategy-finder board; one at a time, every 10 minutes, scheduled here,
// and at once whenever the index becomes ready; a failed one is retried 30 s later).
const backtestWorker = new Worker(
  BACKTEST_QUEUE,
  withDeadline(BACKTEST_QUEUE, JOB_DEADLINES_MS.backtest, backtestProcessor({ reads, logger, viewsSchema: config.VIEWS_SCHEMA }), {
    logger,
    reply: "api-error",
  }),
  {
    connection,
    prefix: `${config.REDIS_PREFIX}:bull`,
    concurrency: 2,
  },
);
backtestWorker.on("error", (error) => logger.warn({ err: error.message }, "backtest worker"));
// Scans read the index only once it is ready, and carry the chain they were made on (its genesis hash).
const index = watchIndex(client, logger, "worker", 2000);
const scanChainOf = async () => index.chain() ?? genesisHash(client);
const scanWorker = new Worker(
  SCAN_QUEUE,
  withDeadline(
    SCAN_QUEUE,
    JOB_DEADLINES_MS.scan,
    scanProcessor({
      db,
      reads,
      deployments,
      now: () => new Date(),
      fees: chainFees(client, deployments),
      logger,
      chain: scanChainOf,
      indexReady: () => index.ready(),
    }),
    { logger },
  ),
  {
    connection,
    prefix: `${config.REDIS_PREFIX}:bull`,
    concurrency: 1,
    lockDuration: 120_000,
  },
);
scanWorker.on("error", (error) => logger.warn({ err: error.message }, "scan worker"));
const scanQueue = new Queue(SCAN_QUEUE, { connection, prefix: `${config.REDIS_PREFIX}:bull`, streams: queueStreams });
await scheduleScans(scanQueue).catch((error) => logger.warn({ err: (error as Error).message }, "scan schedule"));
// The index became ready, or is a new one (re-created views, another chain): every scan now, not at the next tick.
index.onChange((state) => {
  if (!state.ready || !state.generation) return;
  runScansNow(scanQueue, `${state.generation}-${(state.chain ?? "unknown").slice(0, 18)}`).catch((error) =>
    logger.warn({ err: (error as Error).message }, "scans on index ready"),
  );
});
void index.start();

// The report card: match filings to mined calls and grade them, every minute, one pass at a time.
const gradingWorker = new Worker(
  GRADING_QUEUE,
  withDeadline(GRADING_QUEUE, JOB_DEADLINES_MS.grading, gradingProcessor({ db, reads, now: () => new Date(), logger, indexReady: () => index.ready() }), {
    logger,
  }),
  {
    connection,
    prefix: `${config.REDIS_PREFIX}:bull`,
    concurrency: 1,
    lockDuration: 120_000,
  },
);
gradingWorker.on("error", (error) => logger.warn({ err: error.message }, "grading worker"));
const gradingQueue = new Queue(GRADING_QUEUE, { connection, prefix: `${config.REDIS_PREFIX}:bull`, streams: queueStreams });
if (config.AGENT_REPORT_CARDS === "on")
  await scheduleGrading(gradingQueue).catch((error) => logger.warn({ err: (error as Error).message }, "grading schedule"));

// Retention: expired sign-ins, sign requests, cursors, unmatched filings and old run logs, every 10 minutes.
const purgeWorker = new Worker(
  PURGE_QUEUE,
  withDeadline(PURGE_QUEUE, JOB_DEADLINES_MS.purge, purgeProcessor({ db, now: () => new Date(), logger }), { logger }),
  {
    connection,
    prefix: `${config.REDIS_PREFIX}:bull`,
    concurrency: 1,
  },
);
purgeWorker.on("error", (error) => logger.warn({ err: error.message }, "purge worker"));
const purgeQueue = new Queue(PURGE_QUEUE, { connection, prefix: `${config.REDIS_PREFIX}:bull`, streams: queueStreams });
await schedulePurge(purgeQueue).catch((error) => logger.warn({ err: (error as Error).message }, "purge schedule"));
// A Redis that comes back without its data (restarted with no persistence, as the soak of issue 52 does) has
// lost the schedules too: grading stopped for good until the worker restarted. Every reconnection upserts
// them again (upsertJobScheduler keeps an existing schedule as it is).
connection.on("ready", () => {
  logger.info({}, "redis reconnected: schedules upserted again");
  void scheduleScans(scanQueue).catch((error) => logger.warn({ err: (error as Error).message }, "scan schedule"));
  if (config.AGENT_REPORT_CARDS === "on")
    void scheduleGrading(gradingQueue).catch((error) => logger.warn({ err: (error as Error).message }, "grading schedule"));
  void schedulePurge(purgeQueue).catch((error) => logger.warn({ err: (error as Error).message }, "purge schedule"));
});

// Health and metrics of this worker, with every queue's counts.
const queues = queueMetrics({ redisUrl: config.REDIS_URL, sentinel: config.REDIS_SENTINEL, prefix: `${config.REDIS_PREFIX}:bull`, queues: QUEUE_NAMES });
const metricsServer = startWorkerMetrics({
  workers: [worker, aggregatorWorker, backtestWorker, scanWorker, gradingWorker, purgeWorker],
  queueText: queues.text,
  oldestActive: queues.oldestActiveSeconds,
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
    await Promise.all([worker.close(), aggregatorWorker.close(), backtestWorker.close(), scanWorker.close(), gradingWorker.close(), purgeWorker.close()]);
    await index.close();
    await scanQueue.close();
    await gradingQueue.close();
    await purgeQueue.close();
    await aggregatorJobs.close();
    await queues.close();
    await Promise.allSettled([db.destroy(), reads.destroy(), connection.quit()]);
  },
});
