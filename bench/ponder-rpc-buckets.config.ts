// Diagnostic only (bench/indexer-backfill.ts): the indexer's config with its chain's JSON-RPC URL listed
// BENCH_RPC_BUCKETS times. Ponder rate-limits each listed URL on its own (a "bucket" starting at 20
// requests/s and growing 5% at a time while saturated), so this lifts the cap a local devnet does not need,
// and shows how much of the backfill is that cap rather than indexing.
import { createConfig } from "ponder";
import app from "../ponder.config.js";

const buckets = Number(process.env.BENCH_RPC_BUCKETS ?? 8);
const chains = Object.fromEntries(
  Object.entries(app.chains).map(([name, chain]) => [name, { ...chain, rpc: Array.from({ length: buckets }, () => chain.rpc as string) }]),
) as unknown as typeof app.chains;

export default createConfig({ ...app, chains });
