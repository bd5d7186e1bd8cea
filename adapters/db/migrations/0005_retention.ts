// Retention (workers/processors/purge.ts): the purge job finds old filings and strategy-finder runs by
// their creation time; these indexes keep its batches from scanning the whole tables.
import type { Kysely, Migration } from "kysely";

export function retention(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.createIndex("filing_created_at_idx").on("filing").column("created_at").execute();
      await s.createIndex("strategy_run_created_at_idx").on("strategy_run").column("created_at").execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.dropIndex("strategy_run_created_at_idx").ifExists().execute();
      await s.dropIndex("filing_created_at_idx").ifExists().execute();
    },
  };
}
