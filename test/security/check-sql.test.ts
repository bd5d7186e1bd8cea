// Every SQL query is parameterised: scripts/check-sql.ts scans every product room, and CI runs it
// here. The detector is also shown the shapes it must refuse and the ones it must let pass.
import { describe, expect, it } from "vitest";
import { ALLOWED, checkSql, findingsOf } from "../../scripts/check-sql.js";

describe("scripts/check-sql.ts", () => {
  it("finds no SQL built from strings, nor any statement outside adapters/, beyond the commented allow-list, and no stale entry", () => {
    const result = checkSql();
    expect(result.files).toBeGreaterThan(50);
    expect(result.refused.map((f) => `${f.file}:${f.line} ${f.rule}: ${f.text}`)).toEqual([]);
    expect(result.unusedAllowed).toEqual([]);
    for (const entry of ALLOWED) expect(entry.why.length).toBeGreaterThan(10);
    for (const entry of ALLOWED) expect(entry.file.startsWith("adapters/db/")).toBe(true);
  });

  it("refuses a query-builder call or a tagged sql template outside adapters/, and lets adapters/db/ hold them", () => {
    const source = [
      "await db.selectFrom('t').selectAll().where('id', '=', id).execute();",
      "await sql`delete from t where id = ${id}`.execute(db);",
      "const n = sql<number>`count(*)`;",
      "await trx.insertInto('t').values(row).execute();",
      "await db.updateTable('t').set({ a: 1 }).execute();",
      "await db.deleteFrom('t').execute();",
      "await db.with('w', (q) => q.selectFrom('t').selectAll()).selectFrom('w').selectAll().execute();",
    ].join("\n");
    const rules = findingsOf("usecases/x.ts", source).map((f) => `${f.line}:${f.rule}`);
    expect(rules).toEqual([
      "1:placement",
      "2:placement",
      "3:placement",
      "4:placement",
      "5:placement",
      "6:placement",
      "7:placement",
      "7:placement",
      "7:placement",
    ]);
    expect(findingsOf("adapters/db/x.ts", source)).toEqual([]);
    // Words that are not kysely's: a `with` without a query callback, a tag other than `sql`.
    expect(findingsOf("usecases/y.ts", "const a = z.with('x');\nconst b = html`<p>${x}</p>`;")).toEqual([]);
  });

  it("refuses unsafe calls, sql.raw / sql.lit / CompiledQuery.raw, untagged SQL templates and SQL concatenation", () => {
    const source = [
      "await sql.unsafe(`select * from t where id = '${id}'`);",
      "await db.executeQuery(CompiledQuery.raw(`select 1 from t where a = ${a}`));",
      "const q = sql`select ${sql.raw(column)} from t`;",
      "const r = sql.lit(name);",
      "await client.query(`delete from sessions where token = '${token}'`);",
      'await client.query("select * from users where name = \'" + name + "\'");',
      "const s = `UPDATE accounts SET owner = ${owner}`;",
      "const j = `select coalesce(json_agg(json_build_object('a', x.a)), '[]') from ${table} x`;",
      "const k = `the owner from ${owner} selected`;",
    ].join("\n");
    const rules = findingsOf("adapters/db/x.ts", source).map((f) => `${f.line}:${f.rule}`);
    // Line 8: a select whose table is interpolated, whatever its column list; line 9 reads as prose.
    expect(rules).toEqual(["1:unsafe", "2:raw", "3:raw", "4:raw", "5:template", "6:concat", "7:template", "8:template"]);
  });

  it("names a sql.lit call with its argument, so an allow-list entry for sql.lit(DAY_S) covers no other sql.lit in its file", () => {
    const [lit] = findingsOf("adapters/db/reads/prices.ts", "const d = sql<number>`(${sql.ref('start')} / ${sql.lit(name)})`;");
    expect(lit).toMatchObject({ rule: "raw", text: "sql.lit(name)" });
    const entries = ALLOWED.filter((a) => a.file === "adapters/db/reads/prices.ts" && a.rule === "raw");
    expect(entries.map((a) => a.contains)).toEqual(["sql.lit(DAY_S)"]);
    expect(entries.some((a) => lit!.text.includes(a.contains))).toBe(false);
  });

  it("lets parameterised SQL pass: tagged templates, the query builder, identifiers through sql.ref / sql.id", () => {
    const source = [
      "await sql`select * from t where id = ${id}`;",
      "await db.selectFrom('t').selectAll().where('id', '=', id).execute();",
      "const x = sql<number>`max(${sql.ref('timestamp')})`;",
      "await sql`create schema if not exists ${sql.id(schema)}`.execute(db);",
      "const message = `Select a vault from the list: ${name}`;", // words, not SQL
      "const label = 'select' + suffix;",
    ].join("\n");
    expect(findingsOf("adapters/db/y.ts", source)).toEqual([]);
  });
});
