// What every process of the service does first (the API, a worker): Postgres and Redis reachable (one
// line and exit 1 otherwise), the chain's id checked, its logger, and the API's schema made and migrated;
// and the watch on the index's readiness that the API's gate and the workers' scans both keep.
import type { Kysely } from "kysely";
import type { Sql } from "postgres";
import type { PublicClient } from "viem";
import { config, redactUrl, rpcUrl, usesDevnet } from "../adapters/config.js";
import type { Database } from "../adapters/db/api-schema.js";
import { createDb, createPostgres, migrateToLatest } from "../adapters/db/connect.js";
import { ReadTargets } from "../adapters/db/read-targets.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../adapters/db/projections.js";
import { ensureDatabase } from "../adapters/db/ensure-database.js";
import { genesisHash, IndexReadiness } from "../adapters/db/index-readiness.js";
import { createLogger, type Logger } from "../adapters/logger.js";
import { requireChain, requireServices } from "../adapters/services.js";
import { ChainGuard } from "../adapters/chain/chain-guard.js";

/**
 * The API's schema (migrated) and the projections' views, each a pool of DATABASE_POOL_MAX connections;
 * with DATABASE_READ_URL, the views are read on the standbys (`readTargets`), the API's schema on the primary.
 */
export async function startService(
  service: string,
): Promise<{ logger: Logger; db: Kysely<Database>; reads: Kysely<Projections>; chain: ChainGuard; readTargets?: ReadTargets }> {
  await requireServices({ postgres: true, redis: true });
  // A wrong chain id exits; an RPC that does not answer yet does not stop the process: reads need no
  // chain, and only the jobs that need it fail until it answers.
  const chainUnread = await requireChain(rpcUrl(config));
  const logger = createLogger({ level: config.LOG_LEVEL, base: { service } });
  if (chainUnread) logger.warn({}, `${chainUnread}; starting anyway`);
  // Unread at start: checked again when the RPC first answers (prepares stop on a wrong chain).
  const chain = new ChainGuard({ url: rpcUrl(config), logger, knownAtStart: chainUnread === null }).start();

  // A fresh machine has no database yet; the processes may start in any order.
  await ensureDatabase(config.DATABASE_URL);
  const db = createDb({ url: config.DATABASE_URL, schema: config.API_SCHEMA, max: config.DATABASE_POOL_MAX, applicationName: `agent-${service}` });
  try {
    await migrateToLatest(db, config.API_SCHEMA);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reason = code === "3D000" ? "the database does not exist (create it, or set DATABASE_URL)" : (error as Error).message;
    console.error(`Postgres at ${redactUrl(config.DATABASE_URL)}: ${reason}`);
    process.exit(1);
  }
  const primary = createProjectionsPostgres({ url: config.DATABASE_URL, max: config.DATABASE_POOL_MAX });
  const readTargets = config.DATABASE_READ_URLS.length > 0 ? startReadTargets(service, primary, logger) : undefined;
  const reads = createProjectionsDb({
    sql: primary,
    viewsSchema: config.VIEWS_SCHEMA,
    route: readTargets,
  });
  return { logger, db, reads, chain, readTargets };
}

/** The standbys of DATABASE_READ_URL, each with a pool of DATABASE_POOL_MAX connections, and the lag watch over them. */
function startReadTargets(service: string, primary: Sql, logger: Logger): ReadTargets {
  const applicationName = `agent-${service}-reads`;
  const monitor = (url: string) => createPostgres({ url, max: 1, applicationName: `agent-${service}-lag` });
  const targets = new ReadTargets({
    primary,
    primaryMonitor: monitor(config.DATABASE_URL),
    standbys: config.DATABASE_READ_URLS.map((url) => ({
      name: redactUrl(url),
      pool: createProjectionsPostgres({ url, max: config.DATABASE_POOL_MAX, applicationName }),
      monitor: monitor(url),
    })),
    maxLagMs: config.READ_MAX_LAG_MS,
    logger,
  });
  logger.info({ standbys: config.DATABASE_READ_URLS.map(redactUrl), maxLagMs: config.READ_MAX_LAG_MS }, "reading the projections on standbys");
  return targets.start();
}

/**
 * The index's readiness for this process (views made, backfill done; on the devnet, of the running chain,
 * by its genesis hash), polled every `pollMs`. Call `start()` on it.
 */
export function watchIndex(client: PublicClient, logger: Logger, service: string, pollMs?: number): IndexReadiness {
  return new IndexReadiness({
    url: config.DATABASE_URL,
    viewsSchema: config.VIEWS_SCHEMA,
    genesis: () => genesisHash(client),
    devnet: usesDevnet(config),
    logger,
    pollMs,
    applicationName: `agent-${service}-readiness`,
  });
}
