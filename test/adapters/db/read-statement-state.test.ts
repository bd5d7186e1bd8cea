// The read statements' state per reads pool (adapters/db/reads/statement-state.ts): made with the pool's
// Kysely and held by its dialect, not in a module-level map. Statements asked for at the same moment on one
// pool share its batcher (one round trip), what a caller keeps beside a statement is the pool's own, and
// two pools keep theirs apart.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProjectionsDb, createProjectionsPostgres } from "../../../adapters/db/projections.js";
import { keptWith, runBatched, runStatement, type StatementText } from "../../../adapters/db/reads/statement.js";
import { createTestDatabase, noProjections, type TestDatabase } from "../../api/support.js";

const SCHEMA = "views_under_test";
// Each entry's row, with the size of the batch it went in.
const sized: StatementText = () => "select (e->>'i')::int as i, jsonb_array_length($1::text::jsonb) as n from jsonb_array_elements($1::text::jsonb) e";
const counted: StatementText = (t) => `select count(*)::int as n from ${t("token")}`;

describe("the read statements' state per pool", () => {
  let database: TestDatabase;
  const pools: ReturnType<typeof createProjectionsDb>[] = [];
  const open = () => {
    const reads = createProjectionsDb({ sql: createProjectionsPostgres({ url: database.url, max: 2 }), viewsSchema: SCHEMA });
    pools.push(reads);
    return reads;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const setup = createProjectionsDb({ sql: createProjectionsPostgres({ url: database.url, max: 1 }), viewsSchema: SCHEMA });
    await sql`create schema ${sql.id(SCHEMA)}; create table ${sql.id(SCHEMA, "token")} (address text); insert into ${sql.id(SCHEMA, "token")} values ('0x1'), ('0x2')`.execute(
      setup,
    );
    await setup.destroy();
  });
  afterAll(async () => {
    for (const reads of pools) await reads.destroy();
    await database?.drop();
  });

  it("names its tables in the pool's views schema", async () => {
    expect(await runStatement(open(), counted, [])).toEqual([{ n: 2 }]);
  });

  it("batches the statements asked for at the same moment on one pool, not across two", async () => {
    const [a, b] = [open(), open()];
    const rows = await Promise.all([runBatched(a, sized, {}), runBatched(a, sized, {}), runBatched(a, sized, {}), runBatched(b, sized, {})]);
    expect(rows.map((r) => (r as { n: number }).n)).toEqual([3, 3, 3, 1]);
  });

  it("keeps what a caller keeps beside a statement per pool", () => {
    const [a, b] = [open(), open()];
    const first = keptWith(a, counted, () => ({ made: 1 }));
    expect(keptWith(a, counted, () => ({ made: 2 }))).toBe(first);
    expect(keptWith(b, counted, () => ({ made: 3 }))).toEqual({ made: 3 });
  });

  it("keeps nothing between statements for a Kysely made without a pool's state (a test's)", () => {
    const reads = noProjections();
    expect(keptWith(reads, counted, () => ({ made: 1 }))).not.toBe(keptWith(reads, counted, () => ({ made: 1 })));
  });
});
