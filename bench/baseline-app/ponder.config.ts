// The baseline of the indexer benchmark: the same sources as the indexer (contracts, addresses, ABIs,
// factories and start blocks from the deployments file, the same chain settings), taken from the
// indexer's own config so that the two always read the same logs; only the database is this app's.
import { createConfig } from "ponder";
import app from "../../ponder.config.js";

export default createConfig({
  database: { kind: "postgres", connectionString: process.env.DATABASE_URL! },
  chains: app.chains,
  contracts: app.contracts,
});
