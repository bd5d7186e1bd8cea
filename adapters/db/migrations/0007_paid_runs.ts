// Paid runs (x402) go into the strategy finder's run log with the transaction that settled them, so a
// payment can be traced from the chain to the run it bought and back.
import type { Kysely, Migration } from "kysely";

export function paidRuns(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.alterTable("strategy_run").addColumn("settlement_tx", "text").execute();
      await s.createIndex("strategy_run_settlement_tx").on("strategy_run").column("settlement_tx").unique().execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.dropIndex("strategy_run_settlement_tx").ifExists().execute();
      await s.alterTable("strategy_run").dropColumn("settlement_tx").execute();
    },
  };
}
