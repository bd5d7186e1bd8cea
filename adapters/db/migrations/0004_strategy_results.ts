// Strategy results of the API's schema: the strategy finder's daily picks, followed on paper for 7
// days (its track record), and the log of on-demand strategy-finder backtests (every run is logged).
// The latest scans (grid tokens, ladder tokens, the finder board) live in scan_result (0001).
import { sql, type Kysely, type Migration } from "kysely";

export function strategyResults(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      const now = sql`now()`;
      await s
        .createTable("strategy_pick")
        .addColumn("id", "text", (c) => c.primaryKey())
        // UTC day of the pick (YYYY-MM-DD): one set of picks a day.
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("rank", "integer", (c) => c.notNull())
        .addColumn("style", "text", (c) => c.notNull())
        .addColumn("token", "text", (c) => c.notNull())
        .addColumn("symbol", "text", (c) => c.notNull())
        .addColumn("period_days", "integer", (c) => c.notNull())
        // The run parameters picked (lines, amounts) and the board's figures at pick time.
        .addColumn("params", "jsonb", (c) => c.notNull())
        .addColumn("board_return_pct", "double precision", (c) => c.notNull())
        .addColumn("start_price", "double precision", (c) => c.notNull())
        .addColumn("started_at", "timestamptz", (c) => c.notNull())
        // Followed on paper: the latest result (null before the first follow-up) and when it ended.
        .addColumn("paper", "jsonb")
        .addColumn("done", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
        .execute();
      await s.createIndex("strategy_pick_day").on("strategy_pick").columns(["day", "rank"]).unique().execute();

      await s
        .createTable("strategy_run")
        .addColumn("id", "bigserial", (c) => c.primaryKey())
        .addColumn("identity_kind", "text")
        .addColumn("identity_value", "text")
        .addColumn("token", "text", (c) => c.notNull())
        .addColumn("strategy", "text", (c) => c.notNull())
        .addColumn("input", "jsonb", (c) => c.notNull())
        .addColumn("summary", "jsonb", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
        .execute();
      await s.createIndex("strategy_run_identity").on("strategy_run").columns(["identity_kind", "identity_value"]).execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.dropTable("strategy_run").ifExists().execute();
      await s.dropTable("strategy_pick").ifExists().execute();
    },
  };
}
