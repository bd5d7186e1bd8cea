// The baseline's one table: every log of every indexed contract, as it comes.
import { onchainTable } from "ponder";

export const rawLog = onchainTable("raw_log", (t) => ({
  id: t.text().primaryKey(),
  address: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  logIndex: t.integer().notNull(),
  topic0: t.hex(),
}));
