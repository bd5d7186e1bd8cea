// `npm run mcp`: the agent API as an MCP server over stdio, for agents that start their tools as a
// local process. It builds the API as `npm run api` does (same configuration, Postgres, Redis, the
// chain, prepares through the workers of the same Redis prefix) without listening on a port; every
// tool call runs the API's route in this process (mcp/server.ts). stdout carries the protocol
// only: logs go to stderr.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createApp } from "../api/app.js";
import { paymentSettingsOf } from "../usecases/payments/x402.js";
import { watchIndex } from "../adapters/start-up.js";
import { createRedis, waitForRedis } from "../adapters/redis.js";
import { createChainClient } from "../adapters/chain/client.js";
import { loadDeployments } from "../adapters/chain/deployments.js";
import { config, redactUrl, rpcUrl } from "../adapters/config.js";
import { createDb, migrateToLatest } from "../adapters/db/connect.js";
import { ensureDatabase } from "../adapters/db/ensure-database.js";
import { createProjectionsDb, createProjectionsPostgres } from "../adapters/db/projections.js";
import { createJobClient } from "../adapters/queue/request-reply.js";
import { createLogger } from "../adapters/logger.js";
import { agentTools, createAgentMcpServer } from "../mcp/server.js";
import { requireChain, requireServices } from "../adapters/services.js";

function exitWith(line: string): never {
  console.error(line);
  process.exit(1);
}

await requireServices({ postgres: true, redis: true });
// As the API: a wrong chain id exits, an RPC that does not answer yet does not.
const chainUnread = await requireChain(rpcUrl(config));
const logger = createLogger({ level: config.LOG_LEVEL, base: { service: "mcp" }, write: (line) => process.stderr.write(`${line}\n`) });
if (chainUnread) logger.warn({}, `${chainUnread}; starting anyway`);

await ensureDatabase(config.DATABASE_URL);
const db = createDb({ url: config.DATABASE_URL, schema: config.API_SCHEMA, max: Math.min(4, config.DATABASE_POOL_MAX), applicationName: "agent-mcp" });
try {
  await migrateToLatest(db, config.API_SCHEMA);
} catch (error) {
  exitWith(`Postgres at ${redactUrl(config.DATABASE_URL)}: ${(error as Error).message}`);
}
const redis = createRedis({ url: config.REDIS_URL, logger });
try {
  await waitForRedis(redis, 5000);
} catch (error) {
  exitWith(`Redis is unreachable at ${redactUrl(config.REDIS_URL)} (${(error as Error).message}) — start it, or set REDIS_URL`);
}
const reads = createProjectionsDb({
  sql: createProjectionsPostgres({ url: config.DATABASE_URL, max: Math.min(4, config.DATABASE_POOL_MAX) }),
  viewsSchema: config.VIEWS_SCHEMA,
});
const jobs = createJobClient({ redisUrl: config.REDIS_URL, prefix: `${config.REDIS_PREFIX}:bull` });
const client = createChainClient(rpcUrl(config));
// Readiness from Postgres, as the API's: the indexer may run on another host.
const index = watchIndex(client, logger, "mcp");
await index.startWithin();

const app = createApp({
  db,
  reads,
  deployments: loadDeployments(config.DEPLOYMENTS_FILE),
  client,
  redis,
  jobs,
  logger,
  now: () => new Date(),
  indexerReady: () => index.ready(),
  index,
  baseUrl: config.BASE_URL,
  reportCards: { enabled: config.AGENT_REPORT_CARDS === "on", reads: config.AGENT_REPORT_CARDS_READS },
  rateLimit: { keyPrefix: `${config.REDIS_PREFIX}:rl:mcp` },
  payments: paymentSettingsOf(config),
});

const server = await createAgentMcpServer(app);
const transport = new StdioServerTransport();
let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await server.close().catch(() => {});
  await Promise.allSettled([db.destroy(), reads.destroy(), redis.quit(), jobs.close(), index.close()]);
  process.exit(0);
}
transport.onclose = () => void shutdown();
process.stdin.on("end", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
await server.connect(transport);
logger.info({ tools: (await agentTools(app)).length }, "MCP server on stdio");
