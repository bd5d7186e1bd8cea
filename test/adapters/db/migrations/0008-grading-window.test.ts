// Migration 0008 on a schema with filings in it: the last hour's never-matched filings become matchable
// with their call key, older or matched ones do not; "ambiguous" becomes `other`, off the public card.
import { Kysely, Migrator, sql } from "kysely";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../../adapters/db/api-schema.js";
import { PostgresJsDialect } from "../../../../adapters/db/postgres-js-dialect.js";
import { migrationProvider } from "../../../../adapters/db/migrations/index.js";
import { callKey } from "../../../../domain/grading/index.js";
import { createTestDatabase, type TestDatabase } from "../../../api/support.js";

const SCHEMA = "agent_api";
let database: TestDatabase;
let db: Kysely<any>;
let pool: postgres.Sql;

beforeAll(async () => {
  database = await createTestDatabase();
  // Pinned: kysely's migration lock is a session lock (as migrateToLatest does).
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

describe("migration 0008_grading_window", () => {
  it("keys the last hour's open filings, leaves the rest, and turns ambiguous into other off the public card", async () => {
    expect((await migrator().migrateTo("0007_paid_runs")).error).toBeUndefined();
    const steps = [{ to: "0x5555555555555555555555555555555555555555", data: "0xabcdef01", value: "0" }];
    const now = Date.now();
    const filing = (id: string, agoMs: number) => ({
      id,
      owner: "0xaa",
      kind: "order-action",
      steps: JSON.stringify(steps),
      created_at: new Date(now - agoMs),
    });
    await db
      .withSchema(SCHEMA)
      .insertInto("filing")
      .values([filing("recent", 60_000), filing("old", 3 * 3_600_000), filing("matched", 60_000), filing("ambiguous", 60_000)])
      .execute();
    await db
      .withSchema(SCHEMA)
      .insertInto("report_action")
      .values([
        { filing_id: "matched", owner: "0xaa", state: "waiting", reason: "day", tx_hash: "0x01", note: "n" },
        { filing_id: "ambiguous", owner: "0xaa", state: "not-graded", reason: "ambiguous", tx_hash: "0x02", note: "n" },
      ])
      .execute();
    expect((await migrator().migrateToLatest()).error).toBeUndefined();

    const typed = db.withSchema(SCHEMA) as unknown as Kysely<Database>;
    const rows = await typed.selectFrom("filing").select(["id", "matchable", "call_key"]).orderBy("id").execute();
    expect(rows).toEqual([
      { id: "ambiguous", matchable: false, call_key: null },
      { id: "matched", matchable: false, call_key: null },
      { id: "old", matchable: false, call_key: null },
      { id: "recent", matchable: true, call_key: callKey(steps) },
    ]);
    const amb = await typed.selectFrom("report_action").select(["reason", "on_public_card"]).where("filing_id", "=", "ambiguous").executeTakeFirst();
    expect(amb).toEqual({ reason: "other", on_public_card: false });
    // New filings are matchable by default.
    await typed.insertInto("filing").values({ id: "new", owner: "0xaa", kind: "swap", steps: [] }).execute();
    expect((await typed.selectFrom("filing").select("matchable").where("id", "=", "new").executeTakeFirst())?.matchable).toBe(true);
  });
});
