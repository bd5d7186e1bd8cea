// One handler per event of each contract of the config, each inserting the raw log: what indexing the
// same chain costs Ponder with no work of our own (no reads, one insert per event).
import { ponder } from "ponder:registry";
import type { Abi } from "viem";
import config from "../ponder.config.js";
import { rawLog } from "../ponder.schema.js";

type RawEvent = { id: string; log: { address: `0x${string}`; logIndex: number; topics: (`0x${string}` | null)[] }; block: { number: bigint } };
type Insert = { insert(table: typeof rawLog): { values(row: typeof rawLog.$inferInsert): Promise<unknown> } };
type Handler = (args: { event: RawEvent; context: { db: Insert } }) => Promise<void>;
const on = (name: string, fn: Handler) => (ponder as unknown as { on(name: string, fn: Handler): void }).on(name, fn);

for (const [name, contract] of Object.entries(config.contracts as Record<string, { abi: Abi }>)) {
  for (const item of contract.abi) {
    if (item.type !== "event") continue;
    on(`${name}:${item.name}`, async ({ event, context }) => {
      await context.db.insert(rawLog).values({
        id: event.id,
        address: event.log.address,
        blockNumber: event.block.number,
        logIndex: event.log.logIndex,
        topic0: event.log.topics[0] ?? null,
      });
    });
  }
}
