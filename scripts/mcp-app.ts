// The app behind `npm run mcp` (scripts/mcp.ts loads this module after the MCP handshake): built as
// `npm run api` builds it (same configuration, Postgres, Redis, the chain, prepares through the workers
// of the same Redis prefix) without listening on a port, and its MCP server linked in memory to a client
// the stdio server forwards tool requests to. `closers` collects what to close as it is opened, so a
// client that leaves during the start closes what exists.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createApp } from "../api/app.js";
import { configuredDeps } from "../api/configured-deps.js";
import { watchIndex } from "../boot/start-up.js";
import { createRedis, waitForRedis } from "../adapters/redis.js";
import { createChainClient } from "../adapters/chain/client.js";
import { config, redactUrl, rpcUrl } from "../adapters/config.js";
import { createDb, migrateToLatest } from "../adapters/db/connect.js";
import { ensureDatabase } from "../adapters/db/ensure-database.js";
import { createProjectionsDb, createProjectionsPostgres } from "../adapters/db/projections.js";
import { createJobClient } from "../adapters/queue/request-reply.js";
import { createLogger } from "../adapters/logger.js";
import { requireChain, requireServices } from "../adapters/services.js";

/** A start-up failure, in words for stderr (the process then exits 1). */
export class StartError extends Error {
  override name = "StartError";
}

export async function openMcpApp(closers: (() => Promise<unknown>)[]): Promise<Client> {
  await requireServices({ postgres: true, redis: true });
  // As the API: a wrong chain id exits, an RPC that does not answer yet does not.
  const chainUnread = await requireChain(rpcUrl(config));
  const logger = createLogger({ level: config.LOG_LEVEL, base: { service: "mcp" }, write: (line) => process.stderr.write(`${line}\n`) });
  if (chainUnread) logger.warn({}, `${chainUnread}; starting anyway`);

  await ensureDatabase(config.DATABASE_URL);
  const db = createDb({ url: config.DATABASE_URL, schema: config.API_SCHEMA, max: Math.min(4, config.DATABASE_POOL_MAX), applicationName: "agent-mcp" });
  closers.push(() => db.destroy());
  try {
    await migrateToLatest(db, config.API_SCHEMA);
  } catch (error) {
    throw new StartError(`Postgres at ${redactUrl(config.DATABASE_URL)}: ${(error as Error).message}`);
  }
  const redis = createRedis({ url: config.REDIS_URL, sentinel: config.REDIS_SENTINEL, logger });
  closers.push(() => redis.quit());
  try {
    await waitForRedis(redis, 5000);
  } catch (error) {
    throw new StartError(`Redis is unreachable at ${redactUrl(config.REDIS_URL)} (${(error as Error).message}) — start it, or set REDIS_URL`);
  }
  const reads = createProjectionsDb({
    sql: createProjectionsPostgres({ url: config.DATABASE_URL, max: Math.min(4, config.DATABASE_POOL_MAX) }),
    viewsSchema: config.VIEWS_SCHEMA,
  });
  closers.push(() => reads.destroy());
  const jobs = createJobClient({ redisUrl: config.REDIS_URL, sentinel: config.REDIS_SENTINEL, prefix: `${config.REDIS_PREFIX}:bull` });
  closers.push(() => jobs.close());
  const client = createChainClient(rpcUrl(config));
  // Readiness from Postgres, as the API's: the indexer may run on another host.
  const index = watchIndex(client, logger, "mcp");
  closers.push(() => index.close());
  await index.startWithin();

  const app = createApp({
    ...configuredDeps(),
    db,
    reads,
    client,
    redis,
    jobs,
    logger,
    indexerReady: () => index.ready(),
    index,
    rateLimit: { keyPrefix: `${config.REDIS_PREFIX}:rl:mcp` },
  });

  const server = await app.mcp.server();
  const [near, far] = InMemoryTransport.createLinkedPair();
  const inner = new Client({ name: "stdio", version: "1.0.0" });
  await Promise.all([server.connect(far), inner.connect(near)]);
  closers.unshift(() => server.close());
  logger.info({ tools: (await app.mcp.tools()).length }, "MCP server on stdio: the app is ready");
  return inner;
}
