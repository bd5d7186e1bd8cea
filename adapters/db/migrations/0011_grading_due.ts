// Grading bounded by what changes (issue 51). A waiting report action is read again only when something can
// change it: `due_at` (chain time) when its day or week comes, or a backstop look; `waits_on` the keys of
// what it waits on (`order:<id>`, `deposit:<queue>:<id>`, `withdrawal:<queue>:<id>`), met by the indexer's
// activity changes newer than `grading_mark.block` (the newest block the last pass read changes up to).
import { sql, type Kysely, type Migration } from "kysely";

const PENDING = ["graded", "not-graded"];

export function gradingDue(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.alterTable("report_action").addColumn("due_at", "timestamptz").addColumn("waits_on", sql`text[]`).execute();
      // Every action waiting today is read once by the next pass, which then stores when it is due.
      await db
        .withSchema(schema)
        .updateTable("report_action")
        .set({ due_at: new Date(0) })
        .where("tx_hash", "is not", null)
        .where("state", "not in", PENDING)
        .execute();
      await s
        .createIndex("report_action_due_idx")
        .on("report_action")
        .column("due_at")
        .where(sql.ref("tx_hash"), "is not", null)
        .where(sql.ref("state"), "not in", PENDING)
        .execute();
      await s
        .createIndex("report_action_waits_idx")
        .on("report_action")
        .using("gin")
        .column("waits_on")
        .where(sql.ref("tx_hash"), "is not", null)
        .where(sql.ref("state"), "not in", PENDING)
        .execute();
      await s
        .createTable("grading_mark")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("block", "numeric", (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.dropTable("grading_mark").ifExists().execute();
      await s.dropIndex("report_action_waits_idx").ifExists().execute();
      await s.dropIndex("report_action_due_idx").ifExists().execute();
      await s.alterTable("report_action").dropColumn("waits_on").dropColumn("due_at").execute();
    },
  };
}
