// The last whole grading pass (issue 51): when it started and the newest mined call it covered (chain time).
// The grading lag reads it with one index probe, whatever the number of filings.
import type { Kysely, Migration } from "kysely";

export function gradingPass(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .withSchema(schema)
        .createTable("grading_pass")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("started_at", "timestamptz", (c) => c.notNull())
        .addColumn("covered_to", "integer", (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.withSchema(schema).dropTable("grading_pass").ifExists().execute();
    },
  };
}
