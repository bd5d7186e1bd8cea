// `npm run analysts`: the analysts' GraphQL and /sql (src/api/index.ts) served by `ponder serve` from a
// read target: the first standby of DATABASE_READ_URL, else DATABASE_URL. It reads the index the one
// indexer writes and writes nothing, so it may run on a hot standby and as many times as needed.
import { config } from "../adapters/config.js";
import { requireServices } from "../adapters/services.js";
import { ponderLogArgs, runPonder } from "./ponder-process.js";

await requireServices({ postgres: true, redis: false });
runPonder(
  ["serve", "--schema", config.DATABASE_SCHEMA, "--port", String(config.ANALYSTS_PORT), "--hostname", config.PONDER_HOST, ...ponderLogArgs(config.LOG_LEVEL)],
  { service: "analysts", databaseUrl: config.DATABASE_READ_URLS[0] ?? config.DATABASE_URL },
);
