// A database of a test's own for the grading pass: the API schema migrated, and the projections it reads in
// `views`, shaped by ponder.schema.ts, for the test to write the indexer's rows into.
import type { Kysely } from "kysely";
import postgres from "postgres";
import type { Database } from "../../adapters/db/api-schema.js";
import { createProjectionsDb, createProjectionsPostgres, type Projections } from "../../adapters/db/projections.js";
import { createTestDatabase, migratedDb } from "../api/support.js";
import { createProjectionTables } from "./projection-tables.js";

export type GradingTestDb = {
  db: Kysely<Database>;
  reads: Kysely<Projections>;
  /** For the test's own rows in the projections. */
  raw: postgres.Sql;
  close(): Promise<void>;
};

export async function gradingTestDb(views: string): Promise<GradingTestDb> {
  const database = await createTestDatabase();
  const db = await migratedDb(database);
  const raw = postgres(database.url, { max: 1, onnotice: () => {} });
  await createProjectionTables(raw, views);
  const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: database.url, max: 2 }), viewsSchema: views });
  return {
    db,
    reads,
    raw,
    async close() {
      await Promise.allSettled([db.destroy(), reads.destroy(), raw.end()]);
      await database.drop();
    },
  };
}
