// Activity cursors learn to notice reorgs precisely: the block of their position, and the trail of
// recent blocks whose changes the agent was given (to find the last common block after a reorg).
import { sql, type Kysely, type Migration } from "kysely";

export function activityCursorTrail(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      // Block number of the change at `position` (null for an owner with no changes yet).
      await s.alterTable("activity_cursor").addColumn("block_number", "numeric").execute();
      // {blocks: [[blockNumber, blockHash], ...]}, newest first: the blocks, within the indexer's
      // reorg window, whose changes were given up to this cursor (an object: postgres.js sends
      // objects as JSON, arrays as Postgres arrays).
      await s
        .alterTable("activity_cursor")
        .addColumn("trail", "jsonb", (c) => c.notNull().defaultTo(sql`'{"blocks":[]}'::jsonb`))
        .execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.alterTable("activity_cursor").dropColumn("trail").execute();
      await s.alterTable("activity_cursor").dropColumn("block_number").execute();
    },
  };
}
