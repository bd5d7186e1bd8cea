// Each strategy-finder pick names the chain it was made on (its genesis block hash), as scans do (0006):
// picks of another chain (before a devnet restart, another deployment) are never followed or summed.
import type { Kysely, Migration } from "kysely";

export function pickChain(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.alterTable("strategy_pick").addColumn("chain", "text").execute();
      // One set of picks per day on each chain (a restarted devnet picks again the same day).
      await s.dropIndex("strategy_pick_day").execute();
      await s.createIndex("strategy_pick_chain_day").on("strategy_pick").columns(["chain", "day", "rank"]).unique().nullsNotDistinct().execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.dropIndex("strategy_pick_chain_day").execute();
      await s.alterTable("strategy_pick").dropColumn("chain").execute();
      await s.createIndex("strategy_pick_day").on("strategy_pick").columns(["day", "rank"]).unique().execute();
    },
  };
}
