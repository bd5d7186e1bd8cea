// `npm run api`: the agent API as a standalone process. Checks Postgres and Redis (one line and exit
// 1 when either is unreachable), migrates its schema, listens on PORT, and stops gracefully on
// SIGTERM/SIGINT (stops accepting, lets in-flight requests finish, closes its connections).
import { serve } from "@hono/node-server";
import { config, redactUrl, rpcUrl } from "../adapters/config.js";
import { createChainClient } from "../adapters/chain/client.js";
import { createReadCache } from "../usecases/read-cache.js";
import { ProjectionVersion } from "../adapters/db/projection-version.js";
import { readTargetMetrics } from "../adapters/db/read-targets.js";
import { createJobClient } from "../adapters/queue/request-reply.js";
import { createServer, type Server } from "node:http";
import { Registry } from "prom-client";
import { createApp } from "./app.js";
import { configuredDeps } from "./configured-deps.js";
import { answerParserErrors } from "./middleware/client-error.js";
import { readCacheCounter } from "./middleware/metrics.js";
import { createRedis, waitForRedis } from "../adapters/redis.js";
import { startService, watchIndex } from "../boot/start-up.js";
import { queueMetrics } from "../adapters/queue/metrics.js";
import { QUEUE_NAMES } from "../usecases/queues.js";
import { stopOnSignals } from "../boot/shutdown.js";

const SHUTDOWN_GRACE_MS = 10_000;
const HOST = config.HOST;
const TRUST_PROXY_HOPS = config.TRUST_PROXY_HOPS;

function exitWith(line: string): never {
  console.error(line);
  process.exit(1);
}

const { logger, db, reads, chain, readTargets } = await startService("api");

const redis = createRedis({ url: config.REDIS_URL, sentinel: config.REDIS_SENTINEL, logger });
try {
  await waitForRedis(redis, 5000);
} catch (error) {
  exitWith(`Redis is unreachable at ${redactUrl(config.REDIS_URL)} (${(error as Error).message}) — start it, or set REDIS_URL`);
}

// Prepare routes run their pipeline in the workers (`npm run worker`) of the same Redis prefix.
const jobs = createJobClient({ redisUrl: config.REDIS_URL, sentinel: config.REDIS_SENTINEL, prefix: `${config.REDIS_PREFIX}:bull` });

// Read answers in memory, invalidated by Ponder's change notifications (READ_CACHE_ENTRIES=0: off).
const metricsRegistry = new Registry();
if (readTargets) readTargetMetrics(metricsRegistry, readTargets);
const projectionVersion =
  config.READ_CACHE_ENTRIES > 0
    ? new ProjectionVersion({ url: config.DATABASE_URL, viewsSchema: config.VIEWS_SCHEMA, pollMs: config.READ_CACHE_POLL_MS, logger }).start()
    : undefined;
const readCache = projectionVersion
  ? createReadCache({
      version: projectionVersion,
      entries: config.READ_CACHE_ENTRIES,
      maxBytes: config.READ_CACHE_MB * 1024 * 1024,
      strict: config.READ_CACHE_STRICT === "on",
      counter: readCacheCounter(metricsRegistry),
    })
  : undefined;

// BullMQ's own counts of every queue, served with the API's metrics, and the dashboard over the same queues.
const queues = queueMetrics({ redisUrl: config.REDIS_URL, sentinel: config.REDIS_SENTINEL, prefix: `${config.REDIS_PREFIX}:bull`, queues: QUEUE_NAMES });
const dashboard =
  config.QUEUE_DASHBOARD_USER && config.QUEUE_DASHBOARD_PASSWORD
    ? { queues: queues.queues, user: config.QUEUE_DASHBOARD_USER, password: config.QUEUE_DASHBOARD_PASSWORD }
    : undefined;
const metricsText = async () => (await metricsRegistry.metrics()) + (await queues.text());

// Reads of the index answer 503 until it is ready (views made, backfill done, on the devnet: of the running chain).
const chainClient = createChainClient(rpcUrl(config));
const index = watchIndex(chainClient, logger, "api");
await index.startWithin();

const app = createApp({
  ...configuredDeps(),
  db,
  reads,
  client: chainClient,
  chain,
  redis,
  jobs,
  logger,
  // /ready: the index readable, as the /v1 gate sees it. Known from Postgres (the views and Ponder's
  // is_ready in them), so an API on any host needs no address of the indexer.
  indexerReady: () => index.ready(),
  index,
  rateLimit: {
    keyPrefix: `${config.REDIS_PREFIX}:rl:api`,
    trustProxyHops: TRUST_PROXY_HOPS,
    points: config.RATE_LIMIT_POINTS,
    duration: config.RATE_LIMIT_WINDOW_SECONDS,
  },
  defaultMetrics: true,
  metricsRegistry,
  metricsToken: config.METRICS_TOKEN,
  extraMetrics: queues.text,
  queueDashboard: dashboard,
  readCache,
  readTargets,
});

// /metrics on a port of its own (METRICS_HOST:METRICS_PORT, loopback by default), never on the public one.
const metricsServer = createServer((req, res) => {
  if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") return void res.writeHead(404).end();
  metricsText().then(
    (text) => res.writeHead(200, { "Content-Type": metricsRegistry.contentType }).end(text),
    () => res.writeHead(500).end(),
  );
}).listen(config.METRICS_PORT, config.METRICS_HOST, () => logger.info({ host: config.METRICS_HOST, port: config.METRICS_PORT }, "metrics listening"));
// Metrics are not worth stopping the API for: a taken port is a warning (set METRICS_PORT per process).
metricsServer.on("error", (error: NodeJS.ErrnoException) =>
  logger.warn({ err: { code: error.code, message: error.message } }, "metrics listener failed; /metrics is not served"),
);

const server = serve({ fetch: app.fetch, port: config.PORT, hostname: HOST }, (info) => {
  logger.info({ host: info.address, port: info.port, baseUrl: config.BASE_URL, schema: config.API_SCHEMA }, "agent API listening");
});
// Requests Node's HTTP parser refuses (raw non-ASCII in the path, 16 KiB of headers) answer in the envelope too.
answerParserErrors(server as Server);
// Idle keep-alive sockets live longer than the clients' own (Node's 5 s default races a client that
// reuses a socket just as the server closes it: ECONNRESET, seen once in 1.2 M polls of the soak).
(server as Server).keepAliveTimeout = 65_000;
(server as Server).headersTimeout = 66_000;
server.on("error", (error: NodeJS.ErrnoException) => {
  exitWith(error.code === "EADDRINUSE" ? `port ${config.PORT} is in use — stop the other process, or set PORT` : `API server failed: ${error.message}`);
});

stopOnSignals({
  logger,
  graceMs: SHUTDOWN_GRACE_MS,
  stillBusy: "requests still open",
  close: async () => {
    metricsServer.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled([db.destroy(), reads.destroy(), redis.quit(), jobs.close(), projectionVersion?.close(), index.close(), queues.close()]);
  },
});
