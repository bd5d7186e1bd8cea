// A batch longer than the indexer reads (MAX_BATCH_CALLS): the calls past the bound are not recorded. It is
// said in a warning line and counted in agent_indexer_batch_calls_dropped_total, served beside Ponder's own
// metrics at /indexer-metrics (src/api/index.ts), so an operator can alert on it.
import { Counter, register } from "prom-client";
import { MAX_BATCH_CALLS } from "../domain/executed-calls.js";

const NAME = "agent_indexer_batch_calls_dropped_total";
// Ponder may load this module again (a hot reload): the registry keeps one counter of the name.
const dropped =
  (register.getSingleMetric(NAME) as Counter | undefined) ??
  new Counter({ name: NAME, help: `Calls of atomic batches past the first ${MAX_BATCH_CALLS}, not recorded for the report card` });

export function reportDroppedCalls(txHash: string, decoded: number, count: number) {
  dropped.inc(count);
  console.warn(
    JSON.stringify({
      level: "warn",
      msg: `a batch of ${decoded} calls: the ${count} past the first ${MAX_BATCH_CALLS} are not recorded for the report card`,
      txHash,
      decoded,
      dropped: count,
    }),
  );
}
