// Migration 0011 on a schema with report actions in it: every action waiting today is due at once (the next
// pass reads it and stores when it is due next); final ones and unmatched filings are never due.
import { Kysely, Migrator, sql } from "kysely";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../../adapters/db/api-schema.js";
import { readPendingActions } from "../../../../adapters/db/grading.js";
import { PostgresJsDialect } from "../../../../adapters/db/postgres-js-dialect.js";
import { migrationProvider } from "../../../../adapters/db/migrations/index.js";
import { createTestDatabase, type TestDatabase } from "../../../api/support.js";

const SCHEMA = "agent_api";
let database: TestDatabase;
let db: Kysely<any>;
let pool: postgres.Sql;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = postgres(database.url, { max: 2, onnotice: () => {} });
  db = new Kysely<any>({ dialect: new PostgresJsDialect({ sql: pool, pinned: true }) });
  await sql`create schema ${sql.id(SCHEMA)}`.execute(db);
});
afterAll(async () => {
  await db?.destroy();
  await pool?.end();
  await database?.drop();
});

const migrator = () => new Migrator({ db, provider: migrationProvider(SCHEMA), migrationTableSchema: SCHEMA });

describe("migration 0011_grading_due", () => {
  it("makes every waiting action due once; final and unmatched ones are never due", async () => {
    expect((await migrator().migrateTo("0010_client_bounds")).error).toBeUndefined();
    const ids = ["waiting", "graded", "unmatched"];
    await db
      .withSchema(SCHEMA)
      .insertInto("filing")
      .values(ids.map((id) => ({ id, owner: "0xaa", kind: "grid", steps: JSON.stringify([]), created_at: new Date() })))
      .execute();
    await db
      .withSchema(SCHEMA)
      .insertInto("report_action")
      .values([
        { filing_id: "waiting", owner: "0xaa", state: "waiting", reason: "day", tx_hash: "0x01", note: "n" },
        { filing_id: "graded", owner: "0xaa", state: "graded", tx_hash: "0x02", note: "n", hit: true },
        { filing_id: "unmatched", owner: "0xaa", state: "waiting", reason: "receipt", note: "n" },
      ])
      .execute();
    expect((await migrator().migrateToLatest()).error).toBeUndefined();

    const typed = db.withSchema(SCHEMA) as unknown as Kysely<Database>;
    const due = await typed.selectFrom("report_action").select(["filing_id", "due_at", "waits_on"]).orderBy("filing_id").execute();
    expect(due).toEqual([
      { filing_id: "graded", due_at: null, waits_on: null },
      { filing_id: "unmatched", due_at: null, waits_on: null },
      { filing_id: "waiting", due_at: new Date(0), waits_on: null },
    ]);
    const read = await readPendingActions(typed, { owner: undefined, dueBy: new Date(), events: [] });
    expect(read.map((r) => r.id)).toEqual(["waiting"]);
    expect((await migrator().migrateDown()).error).toBeUndefined();
  });
});
