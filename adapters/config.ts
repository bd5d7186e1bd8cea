// The service's configuration: environment variables, parsed once, with defaults that work on a
// fresh machine. `loadConfig(env)` is the pure parser; `config` is its result for this process.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { DEFAULT_PRICE_PER_DAY_USDG } from "../domain/run-price.js";
import { LIVE_SIGN_REQUESTS_PER_CLIENT } from "../contract/sign-request.js";
import { DAY_S } from "../domain/price.js";

/** Absolute path of the repository (the folder that holds package.json). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const int = (min: number, max: number, what: string) => {
  const error = `must be ${what} (an integer from ${min} to ${max})`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};
const port = () => int(1, 65535, "a port number");
const url = () => z.url({ error: "must be a URL" });
// Schema names and key prefixes end up inside SQL and Redis keys: keep them plain identifiers.
const identifier = () => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { error: "must be a plain identifier (letters, digits, _)" });
const onOff = () => z.enum(["on", "off"], { error: 'must be "on" or "off"' });

const settings = z.object({
  DATABASE_URL: url().default("postgresql://postgres@127.0.0.1:5432/agent"),
  /** Streaming standbys of DATABASE_URL that API and worker replicas read the projections from (comma-separated
   * URLs); writes always go to DATABASE_URL. Unset: every read goes to DATABASE_URL. */
  DATABASE_READ_URL: z
    .string()
    .refine((v) => v.split(",").every((u) => URL.canParse(u.trim()) && u.trim() !== ""), { error: "must be one or more URLs, comma-separated" })
    .optional(),
  /** A standby whose replay is further behind the primary than this is not read until it catches up. */
  READ_MAX_LAG_MS: int(0, 600_000, "a number of milliseconds").default(2000),
  REDIS_URL: url().default("redis://127.0.0.1:6379"),
  /** Redis under Sentinel: the sentinels (host:port, comma-separated) that name the master; REDIS_URL then
   * gives only the password and database. Unset: REDIS_URL is the server. */
  REDIS_SENTINELS: z
    .string()
    .regex(/^\s*[^\s,:]+:\d{1,5}\s*(,\s*[^\s,:]+:\d{1,5}\s*)*$/, { error: "must be host:port, comma-separated" })
    .optional(),
  /** The master's name the sentinels monitor. */
  REDIS_SENTINEL_NAME: z.string().min(1).default("mymaster"),
  /** The chain's JSON-RPC. Unset means the devnet (`npm run devnet`). */
  RPC_URL: url().optional(),
  DEVNET_HOST: z.string().min(1).default("127.0.0.1"),
  DEVNET_PORT: port().default(8545),
  /** The agent API's port. */
  PORT: port().default(8080),
  PONDER_PORT: port().default(42069),
  /** `npm run analysts`: the analysts' GraphQL and /sql served from a read target (a standby of DATABASE_READ_URL). */
  ANALYSTS_PORT: port().default(42070),
  /** The indexer's listen address (its health, metrics, GraphQL and SQL): loopback unless other hosts read it. */
  PONDER_HOST: z.string().min(1).default("127.0.0.1"),
  /** Connections of each pool of an API or worker process (the API schema's, and the projections'). */
  DATABASE_POOL_MAX: int(1, 1000, "a number of connections").default(10),
  /** The indexer's pool (Ponder's own; its default is 30). */
  INDEXER_POOL_MAX: int(1, 1000, "a number of connections").optional(),
  /** Times the indexer lists the RPC URL for Ponder, which rate-limits each listed URL on its own (from
   * 20 requests/s, growing 5% at a time). Default 8 on the devnet, which has no limit; 1 for RPC_URL. */
  INDEXER_RPC_LANES: int(1, 64, "a number of lanes").optional(),
  /** The report card's executed calls from the RPC's call traces (Ponder's includeCallTraces; the RPC must answer
   * debug_traceBlockByNumber with the callTracer, checked at the indexer's start) instead of from events. */
  CALL_TRACES: onOff().default("off"),
  /** The public base URL of the API; defaults to http://127.0.0.1:PORT. */
  BASE_URL: url().optional(),
  /** `npm start` only: where an embedded Postgres keeps its data when it has to start one (relative: from the repository root). */
  EMBEDDED_DIR: z.string().min(1).default(".embedded"),
  /** Contract addresses; relative paths are resolved from the repository root. */
  DEPLOYMENTS_FILE: z.string().min(1).default(".devnet/deployments.json"),
  DATABASE_SCHEMA: identifier().default("ponder"),
  VIEWS_SCHEMA: identifier().default("agent_views"),
  API_SCHEMA: identifier().default("agent_api"),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]+$/, { error: "must be letters, digits, _ . : -" })
    .default("agent"),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
      error: "must be one of fatal, error, warn, info, debug, trace, silent",
    })
    .default("info"),
  DEVNET_SIM_INTERVAL_MS: int(10, 3_600_000, "a number of milliseconds").default(2000),
  /** Days of seeded devnet history (the service reads 90; tests may seed less to start faster). */
  DEVNET_HISTORY_DAYS: int(1, 90, "a number of days from 1 to 90").default(90),
  /** Set: the devnet runs on anvil and keeps its chain in this file; a next start with it and the deployments
   * file reuses that chain (no deploy, no seeding). Unset or `off`: the in-process EDR chain, new at every start.
   * `npm start` sets it when unset (devnetStateFile). */
  DEVNET_STATE_FILE: z
    .string()
    .min(1)
    .optional()
    .transform((file) => (file === "off" ? undefined : file)),
  /** The API's listen address. */
  HOST: z.string().min(1).default("127.0.0.1"),
  /** Proxies in front of the API whose X-Forwarded-For hops are trusted for the client address. */
  TRUST_PROXY_HOPS: int(0, 10, "a number of proxy hops").default(0),
  /** Prometheus /metrics of the API, on a port of its own (never the public API port). */
  METRICS_PORT: port().default(9464),
  /** The metrics listener's address: loopback unless a scraper elsewhere needs it. */
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** A worker's health and metrics listener (/health, /metrics), on METRICS_HOST. */
  WORKER_METRICS_PORT: port().default(9465),
  /** Both set: the queue dashboard at /admin/queues on the API port, behind HTTP Basic with these. Unset: 404 there. */
  QUEUE_DASHBOARD_USER: z.string().min(1).optional(),
  QUEUE_DASHBOARD_PASSWORD: z.string().min(12, { error: "must be at least 12 characters" }).optional(),
  /** Set: the API port also serves /metrics, to `Authorization: Bearer <METRICS_TOKEN>` only (401 otherwise). Unset: 404 there. */
  METRICS_TOKEN: z.string().min(16, { error: "must be at least 16 characters" }).optional(),
  /** The per-client limit of /v1 routes (and the sign page): requests per window, in Redis, shared by
   * every API replica of the same REDIS_PREFIX. */
  RATE_LIMIT_POINTS: int(1, 10_000_000, "a number of requests").default(120),
  /** The window of RATE_LIMIT_POINTS, in seconds. */
  RATE_LIMIT_WINDOW_SECONDS: int(1, DAY_S, "a number of seconds").default(60),
  AGENT_REPORT_CARDS_READS: z.enum(["public", "owner"], { error: 'must be "public" or "owner"' }).default("public"),
  AGENT_REPORT_CARDS: onOff().default("on"),
  AGENT_ACCOUNTS: onOff().default("on"),
  /** Unexpired prepared bundles (SignRequests) one client may hold; past it, prepares answer 429 RATE_LIMITED. */
  SIGN_REQUESTS_PER_CLIENT: int(1, 10_000_000, "a number of sign requests").default(LIVE_SIGN_REQUESTS_PER_CLIENT),
  /** The aggregator route budget that quotes and prepares share: aggregator calls per second (the
   * `aggregator` queue's BullMQ limiter, in every worker). */
  AGGREGATOR_BUDGET_PER_SECOND: int(1, 100_000, "a number of calls per second").default(20),
  /** How long a quote or prepare waits for its turn in the aggregator budget before 429 BUSY. */
  AGGREGATOR_WAIT_MS: int(100, 60_000, "a number of milliseconds").default(3000),
  /** Answers of GET accounts/{owner} and GET activity kept in memory per API process, per route; 0 turns the cache off. */
  READ_CACHE_ENTRIES: int(0, 10_000_000, "a number of entries").default(100_000),
  /** Memory bound of each of those two caches, in MiB of answer bodies. */
  READ_CACHE_MB: int(1, 65_536, "a number of MiB").default(256),
  /** on: every answer from memory first waits for a heartbeat round trip through Postgres (exact against any
   * commit visible before the request); off: no wait, answers may lag a commit by the notification's delivery. */
  READ_CACHE_STRICT: onOff().default("on"),
  /** How often the projection version tracker polls the views' checkpoint and sends its heartbeat. */
  READ_CACHE_POLL_MS: int(20, 10_000, "a number of milliseconds").default(200),
  /** The x402 facilitator that verifies and settles payments (the service holds no key). Default on the
   * devnet: the devnet's own, at DEVNET_HOST:X402_FACILITATOR_PORT; with RPC_URL it must be set, else paid
   * requests answer 503 UNAVAILABLE. */
  X402_FACILITATOR_URL: url().optional(),
  /** Where the devnet serves its facilitator (`npm run devnet`). */
  X402_FACILITATOR_PORT: port().default(8546),
  /** Where the devnet serves its faucet (`npm run devnet`; `npm run fund`): on the devnet only, never with RPC_URL. */
  DEVNET_FAUCET_PORT: port().default(8547),
  /** Who x402 payments pay; unset: the service admin the chain names (the strategies' admin). */
  X402_PAYEE: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, { error: "must be an address (0x and 40 hex digits)" })
    .optional(),
  /** The price of each day past the free 30, in whole USDG (backtests and ranges). */
  X402_PRICE_PER_DAY_USDG: z.coerce
    .number({ error: "must be a number of USDG from 0.000001 to 1000" })
    .min(0.000001, { error: "must be a number of USDG from 0.000001 to 1000" })
    .max(1000, { error: "must be a number of USDG from 0.000001 to 1000" })
    .default(DEFAULT_PRICE_PER_DAY_USDG),
});

/** Every setting's name, as the environment spells it (.env.example and the README list each one). */
export const settingNames = Object.keys(settings.shape);

const schema = settings.transform((c) => ({
  ...c,
  BASE_URL: (c.BASE_URL ?? `http://127.0.0.1:${c.PORT}`).replace(/\/+$/, ""),
  DEPLOYMENTS_FILE: resolve(repoRoot, c.DEPLOYMENTS_FILE),
  EMBEDDED_DIR: resolve(repoRoot, c.EMBEDDED_DIR),
  INDEXER_RPC_LANES: c.INDEXER_RPC_LANES ?? (c.RPC_URL === undefined ? 8 : 1),
  DATABASE_READ_URLS: c.DATABASE_READ_URL?.split(",").map((u) => u.trim()) ?? [],
  REDIS_SENTINEL: c.REDIS_SENTINELS
    ? {
        name: c.REDIS_SENTINEL_NAME,
        sentinels: c.REDIS_SENTINELS.split(",").map((hp) => {
          const at = hp.trim().lastIndexOf(":");
          return { host: hp.trim().slice(0, at), port: Number(hp.trim().slice(at + 1)) };
        }),
      }
    : undefined,
  X402_FACILITATOR_URL: (c.X402_FACILITATOR_URL ?? (c.RPC_URL === undefined ? `http://${c.DEVNET_HOST}:${c.X402_FACILITATOR_PORT}` : undefined))?.replace(
    /\/+$/,
    "",
  ),
}));

export type Config = z.output<typeof schema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Hides the password of a URL such as postgresql://user:secret@host/db or redis://:secret@host. */
export function redactUrl(value: string): string {
  return value.replace(/(\/\/[^:/@]*:)[^@/]*@/, "$1***@"); // redis://:password@host too
}

/** Parses an environment (pure). Empty strings count as unset. Throws ConfigError, one line. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const input = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? "environment");
    const raw = input[name];
    return raw === undefined ? `${name}: ${issue.message}` : `${name}=${JSON.stringify(redactUrl(raw))} ${issue.message}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
}

/** True when no chain is configured, so the service runs on the devnet. */
export function usesDevnet(cfg: Pick<Config, "RPC_URL">): boolean {
  return cfg.RPC_URL === undefined;
}

/** The devnet's faucet (devnet/faucet.ts), or undefined on a real chain (RPC_URL set), where none is served. */
export function devnetFaucetUrl(cfg: Pick<Config, "RPC_URL" | "DEVNET_HOST" | "DEVNET_FAUCET_PORT">): string | undefined {
  return usesDevnet(cfg) ? `http://${cfg.DEVNET_HOST}:${cfg.DEVNET_FAUCET_PORT}` : undefined;
}

/** The devnet writes this beside its deployments file once it is deployed and seeded. */
export function devnetReadyFile(deploymentsFile: string): string {
  return join(dirname(deploymentsFile), "ready.json");
}

/** Where `npm start` keeps the devnet's chain when DEVNET_STATE_FILE is unset: beside its deployments file. */
export function devnetStateFile(deploymentsFile: string): string {
  return join(dirname(deploymentsFile), "chain-state.json");
}

/** The chain's JSON-RPC URL: RPC_URL, or the devnet's. */
export function rpcUrl(cfg: Pick<Config, "RPC_URL" | "DEVNET_HOST" | "DEVNET_PORT">): string {
  return cfg.RPC_URL ?? `http://${cfg.DEVNET_HOST}:${cfg.DEVNET_PORT}`;
}

/** The indexer's `rpc` list for Ponder: the chain's URL, INDEXER_RPC_LANES times. */
export function indexerRpc(cfg: Pick<Config, "RPC_URL" | "DEVNET_HOST" | "DEVNET_PORT" | "INDEXER_RPC_LANES">): string[] {
  return Array.from({ length: cfg.INDEXER_RPC_LANES }, () => rpcUrl(cfg));
}

function loadOrExit(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** This process's configuration, parsed once at first import. A bad value exits with one line. */
export const config: Config = loadOrExit();
