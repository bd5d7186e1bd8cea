// The report card's own state: for each filing, what the chain says about it (matched transaction,
// grading state and reason, the verdict and its figures). Rebuilt by the grading job from filings and
// the indexer's executed calls; nothing here comes from an agent.
import { sql, type Kysely, type Migration } from "kysely";

export function reportCard(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s
        .createTable("report_action")
        .addColumn("filing_id", "text", (c) => c.primaryKey().references("filing.id").onDelete("cascade"))
        .addColumn("owner", "text", (c) => c.notNull())
        // graded | waiting | not-graded | unsigned (never matched; shown on the private card only)
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("reason", "text")
        .addColumn("tx_hash", "text")
        .addColumn("executed_block", "numeric")
        .addColumn("executed_at", "timestamptz")
        .addColumn("hit", "boolean")
        .addColumn("note", "text", (c) => c.notNull())
        .addColumn("figures", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn("graded_at", "timestamptz")
        .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await s.createIndex("report_action_owner_idx").on("report_action").columns(["owner", "state"]).execute();
      // Filings are matched once: the grading job looks at the ones with no final state.
      await s.createIndex("filing_owner_idx").on("filing").column("owner").execute();
      await s.createIndex("session_owner_idx").on("session").column("owner").execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.dropIndex("session_owner_idx").ifExists().execute();
      await s.dropIndex("filing_owner_idx").ifExists().execute();
      await s.dropTable("report_action").ifExists().execute();
    },
  };
}
