// What the app is built from. Tests pass their own database, Redis, clock and readiness check.
import type { ChainGuard } from "../adapters/chain/chain-guard.js";
import type { ServiceChainStateReader } from "../adapters/chain/service-state.js";
import type { QueueDashboardOptions } from "./queue-dashboard.js";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import type { Registry } from "prom-client";
import type { PublicClient } from "viem";
import type { Database } from "../adapters/db/api-schema.js";
import type { Projections } from "../adapters/db/projections.js";
import type { ReadTargets } from "../adapters/db/read-targets.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import type { JobClient } from "../adapters/queue/request-reply.js";
import type { Logger } from "../adapters/logger.js";
import type { ActivityWaker } from "../usecases/activity/waker.js";
import type { ReadCache } from "../usecases/read-cache.js";
import type { PaymentSettings } from "../usecases/payments/x402.js";
import type { RateLimitOptions } from "./middleware/rate-limit.js";
import type { IndexGateSource } from "./middleware/index-gate.js";

export type AppDeps = {
  /** The API's own schema (sign requests, filings, sessions...), from `createDb`. */
  db: Kysely<Database>;
  /** The indexer's projections, read-only, through the views schema (`createProjectionsDb`). */
  reads: Kysely<Projections>;
  /** The service's contracts on this chain (the deployments file). */
  deployments: Deployments;
  /** Reads of chain 4663 (`createChainClient(rpcUrl(config))`); routes that need the chain say so when absent. */
  client?: PublicClient;
  /** The chain id as the RPC first answered it: prepares answer 503 on any chain but 4663. */
  chain?: Pick<ChainGuard, "servesPrepares">;
  /** Request-reply jobs (BullMQ): prepare routes run in a worker when present, in this process when absent. */
  jobs?: JobClient;
  /** Shared Redis (rate limits); made with `createRedis` so a dead Redis fails fast. */
  redis: Redis;
  logger: Logger;
  /** The clock; every expiry check reads it (tests move it). */
  now: () => Date;
  /** True once the indexer has caught up; `/ready` answers 503 until it is. */
  indexerReady: () => boolean | Promise<boolean>;
  /**
   * The index's readiness (adapters/db/index-readiness.ts): /v1 reads answer 503 UNAVAILABLE until it is
   * ready, and scans are served only when made on its chain. Absent (tests): no gate, any scan.
   */
  index?: IndexGateSource & { readonly viewsSchema: string; chain(): string | undefined; scanChain(): string | undefined; viewsMissing(): void };
  /** Public base URL, e.g. https://agents.example.com (sign links). */
  baseUrl?: string;
  /** The per-client limit of /v1 routes; defaults in middleware/rate-limit.ts. */
  rateLimit?: Partial<RateLimitOptions>;
  /** Largest request body in bytes (default 64 KiB). */
  bodyLimitBytes?: number;
  /** Report cards (AGENT_REPORT_CARDS, AGENT_REPORT_CARDS_READS); default on and public. */
  reportCards?: { enabled: boolean; reads: "public" | "owner" };
  /** Unexpired sign requests one client may hold, for prepares run in this process (SIGN_REQUESTS_PER_CLIENT). */
  signRequestsPerClient?: number;
  /** Registry of /metrics (default: a new one per app). */
  metricsRegistry?: Registry;
  /** Wakes long-polling activity requests (default: one made by the activity routes from `reads`). */
  activityWaker?: ActivityWaker;
  /**
   * Answers of GET accounts/{owner} and GET activity kept in memory, invalidated by the projections'
   * version tracker (adapters/db/projection-version.ts). Absent: every read goes to the database.
   */
  readCache?: ReadCache;
  /** METRICS_TOKEN: also serve /metrics on the API port to `Authorization: Bearer <token>` (absent: 404 there; main.ts serves METRICS_PORT). */
  metricsToken?: string;
  /** More exposition text served after the registry's on /metrics (the queues' bullmq_job_count). */
  extraMetrics?: () => Promise<string>;
  /** The queue dashboard at /admin/queues (absent: 404 there). */
  queueDashboard?: QueueDashboardOptions;
  /**
   * x402 payments of runs past the free window (X402_FACILITATOR_URL, X402_PAYEE, X402_PRICE_PER_DAY_USDG).
   * Absent: no facilitator, so those runs answer 503 UNAVAILABLE (free runs are unaffected).
   */
  payments?: PaymentSettings;
  /** The devnet's faucet, named in skill.md and llms.txt: set only where the service runs on its devnet (`devnetFaucetUrl`). */
  devnetFaucetUrl?: string;
  /** The standbys the projections are read on (DATABASE_READ_URL): /ready names their lag. Absent: reads on the primary. */
  readTargets?: Pick<ReadTargets, "status" | "allLagging">;
  /** Also export the process's default metrics (CPU, memory, event loop); main.ts turns it on. */
  defaultMetrics?: boolean;
};

/** Hono environment of every route: the request id set by the request-id middleware, and longPoll, set by the activity route on a long poll (timed apart in metrics.ts). */
export type AppEnv = { Variables: { requestId: string; longPoll?: boolean } };

/** The deps and what createApp makes once from them for every route group. */
export type AppContext = AppDeps & {
  /** The live fees and service state read off the chain, cached and shared by every route group of the app. */
  chainState: ServiceChainStateReader;
};

/** A route group: a factory that builds its OpenAPIHono from the app's context; createApp mounts it. */
export type RouteGroup = (deps: AppContext) => OpenAPIHono<AppEnv>;
