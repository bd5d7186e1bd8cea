// `npm run indexer`: the Ponder indexer, the one writer of the projections. It creates the database
// when missing, then runs `ponder start` with the configured schema and views schema, so that a reindex
// into a new schema can be switched to with no downtime (see docs/reindex.md).
import { resolve } from "node:path";
import { config, redactUrl, repoRoot, rpcUrl, usesDevnet } from "../adapters/config.js";
import { resetIndexForNewDevnet, resetPgliteForNewDevnet } from "../adapters/db/devnet-reset.js";
import { ensureDatabase } from "../adapters/db/ensure-database.js";
import { callTracerProblem, requireChain, requireServices } from "../adapters/services.js";
import { createLogger } from "../adapters/logger.js";
import { ponderLogArgs, runPonder } from "./ponder-process.js";

const logger = createLogger({ level: config.LOG_LEVEL, base: { service: "indexer" } });

// A wrong chain id exits here, in one line; an RPC that does not answer is left to Ponder (or to the
// devnet check below), as before.
const chainUnread = await requireChain(rpcUrl(config));
if (chainUnread) logger.warn({}, `${chainUnread}; starting anyway`);

// CALL_TRACES=on reads every block's call traces: an RPC without the callTracer would stall the backfill on
// retries, so it is refused here, in one line.
if (config.CALL_TRACES === "on") {
  const problem = await callTracerProblem(rpcUrl(config));
  if (problem) {
    logger.fatal(
      {},
      `CALL_TRACES=on, but the RPC at ${redactUrl(rpcUrl(config))} has no callTracer for debug_traceBlockByNumber (${problem}) — set CALL_TRACES=off`,
    );
    process.exit(1);
  }
}

// DATABASE_KIND=pglite (read by ponder.config.ts) keeps the index in PGLITE_DIRECTORY: no Postgres needed.
if (process.env.DATABASE_KIND === "pglite") {
  const directory = resolve(repoRoot, process.env.PGLITE_DIRECTORY || ".ponder/pglite");
  if (usesDevnet(config) && (await resetPgliteForNewDevnet({ directory, rpcUrl: rpcUrl(config) }))) {
    logger.info({ directory }, "a new devnet: cleared the PGlite index of the previous one");
  }
} else {
  await requireServices({ postgres: true, redis: false });
  await ensureDatabase(config.DATABASE_URL);
  if (
    usesDevnet(config) &&
    (await resetIndexForNewDevnet({
      databaseUrl: config.DATABASE_URL,
      rpcUrl: rpcUrl(config),
      schema: config.DATABASE_SCHEMA,
      savedChain: config.DEVNET_STATE_FILE !== undefined,
    }))
  ) {
    logger.info({ schema: config.DATABASE_SCHEMA }, "a new devnet: dropped the index of the previous one (its schema and ponder_sync)");
  }
}

// Ponder runs every file under src/ as indexing code and hashes them all into its build id, so src/ holds
// only the indexing functions and Ponder's src/api/ (test/indexer/build-id.test.ts).
runPonder(
  [
    "start",
    "--schema",
    config.DATABASE_SCHEMA,
    "--views-schema",
    config.VIEWS_SCHEMA,
    "--port",
    String(config.PONDER_PORT),
    "--hostname",
    config.PONDER_HOST,
    ...ponderLogArgs(config.LOG_LEVEL),
  ],
  { service: "indexer", databaseUrl: config.DATABASE_URL },
);
