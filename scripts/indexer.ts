// `npm run indexer`: the Ponder indexer, the one writer of the projections. It creates the database
// when missing, then runs `ponder start` with the configured schema and views schema, so that a reindex
// into a new schema can be switched to with no downtime (see README).
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { config, repoRoot, rpcUrl, usesDevnet } from "../adapters/config.js";
import { resetIndexForNewDevnet, resetPgliteForNewDevnet } from "../adapters/db/devnet-reset.js";
import { ensureDatabase } from "../adapters/db/ensure-database.js";
import { requireChain, requireServices } from "../adapters/services.js";

// A wrong chain id exits here, in one line; an RPC that does not answer is left to Ponder (or to the
// devnet check below), as before.
const chainUnread = await requireChain(rpcUrl(config));
if (chainUnread) console.warn(`[indexer] ${chainUnread}; starting anyway`);

// DATABASE_KIND=pglite (read by ponder.config.ts) keeps the index in PGLITE_DIRECTORY: no Postgres needed.
if (process.env.DATABASE_KIND === "pglite") {
  const directory = resolve(repoRoot, process.env.PGLITE_DIRECTORY || ".ponder/pglite");
  if (usesDevnet(config) && (await resetPgliteForNewDevnet({ directory, rpcUrl: rpcUrl(config) }))) {
    console.log(`[indexer] a new devnet: cleared the PGlite index of the previous one (${directory})`);
  }
} else {
  await requireServices({ postgres: true, redis: false });
  await ensureDatabase(config.DATABASE_URL);
  if (usesDevnet(config) && (await resetIndexForNewDevnet({ databaseUrl: config.DATABASE_URL, rpcUrl: rpcUrl(config), schema: config.DATABASE_SCHEMA }))) {
    console.log(`[indexer] a new devnet: dropped the index of the previous one (schema ${config.DATABASE_SCHEMA} and ponder_sync)`);
  }
}

const ponderBin = join(repoRoot, "node_modules", "ponder", "dist", "esm", "bin", "ponder.js");
// Ponder runs every file under src/ as indexing code and hashes them all into its build id, so src/ holds
// only the indexing functions and Ponder's src/api/ (test/indexer/build-id.test.ts).
const args = [
  "start",
  "--schema",
  config.DATABASE_SCHEMA,
  "--views-schema",
  config.VIEWS_SCHEMA,
  "--port",
  String(config.PONDER_PORT),
  "--hostname",
  "127.0.0.1",
];
// Ponder takes PORT over --port: PORT is the API's (npm start passes one environment to all), never Ponder's.
const { PORT: _apiPort, ...environment } = process.env;
const child = spawn(process.execPath, [ponderBin, ...args], { cwd: repoRoot, stdio: "inherit", env: { ...environment, DATABASE_URL: config.DATABASE_URL } });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
