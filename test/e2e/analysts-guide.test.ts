// Every example of docs/analysts.md runs as written against the indexed devnet of this run: its SQL on
// the views schema, its GraphQL on Ponder's /graphql, and its @ponder/client code on Ponder's /sql. Each
// answers rows. The guide's units table names every amount column of the views.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import postgres from "postgres";

const stack = inject("stack");
const root = join(import.meta.dirname, "..", "..");
const guide = readFileSync(join(root, "docs", "analysts.md"), "utf8");
const GUIDE_URL = "http://localhost:42069";

type Example = { language: "sql" | "graphql" | "ts"; name: string; params: string[]; code: string };
const examples: Example[] = [...guide.matchAll(/```(sql|graphql|ts) example=([\w-]+)(?: params=([\w,]+))?\n([\s\S]*?)```/g)].map((m) => ({
  language: m[1] as Example["language"],
  name: m[2]!,
  params: m[3] ? m[3].split(",") : [],
  code: m[4]!,
}));

// A plain client, as an analyst's: numerics come back as the strings Postgres sends.
const sql = postgres(stack.databaseUrl, { max: 2, onnotice: () => {} });
const values: Record<string, string> = {};
afterAll(() => sql.end());

beforeAll(async () => {
  // The wallet with the most changes, and the vault with the most recent deposit request.
  const [owner] = await sql.unsafe(`select owner from ${stack.viewsSchema}.activity group by owner order by count(*) desc limit 1`);
  const [vault] = await sql.unsafe(`select vault from ${stack.viewsSchema}.deposit_request order by requested_at desc limit 1`);
  values.owner = owner!.owner as string;
  values.vault = vault!.vault as string;
});

describe("docs/analysts.md", () => {
  it("has the three questions in SQL, GraphQL and @ponder/client", () => {
    const names = new Set(examples.map((e) => `${e.name}:${e.language}`));
    for (const name of ["owner-activity", "vault-deposits", "busiest-markets"])
      for (const language of ["sql", "graphql", "ts"]) expect(names, `${name} in ${language}`).toContain(`${name}:${language}`);
  });

  it.each(examples.filter((e) => e.language === "sql").map((e) => [e.name, e] as const))("SQL: %s", async (_, e) => {
    const rows = await sql.unsafe(
      e.code.replaceAll("agent_views.", `${stack.viewsSchema}.`),
      e.params.map((p) => values[p]!),
    );
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(examples.filter((e) => e.language === "graphql").map((e) => [e.name, e] as const))("GraphQL: %s", async (_, e) => {
    const res = await fetch(`${stack.ponderUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: e.code, variables: Object.fromEntries(e.params.map((p) => [p, values[p]])) }),
    });
    const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(res.status).toBe(200);
    // Every list in the answer has items: the examples ask about things the devnet has.
    const lists = JSON.stringify(body.data).match(/"items":\[[^\]]/g) ?? [];
    expect(lists.length, JSON.stringify(body.data).slice(0, 300)).toBeGreaterThan(0);
  });

  it.each(examples.filter((e) => e.language === "ts").map((e) => [e.name, e] as const))("@ponder/client: %s", async (_, e) => {
    const dir = join(root, "test", ".artifacts", "analysts");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${e.name}.ts`);
    writeFileSync(file, e.code.replace("./ponder.schema.js", join(root, "ponder.schema.ts")).replace(GUIDE_URL, stack.ponderUrl));
    const { run } = (await import(file)) as { run: (...args: string[]) => Promise<unknown[]> };
    const rows = await run(...e.params.map((p) => values[p]!));
    expect(rows.length).toBeGreaterThan(0);
  });

  it("names every amount column of the views in its units table", async () => {
    const rows = [...guide.matchAll(/^\| ([\w, ]+) \| ([\w, ]+) \| [^|]+\|$/gm)].flatMap((m) =>
      m[1]!.split(", ").flatMap((table) => m[2]!.split(", ").map((column) => `${table}.${column}`)),
    );
    const amounts = (
      await sql.unsafe(`select table_name, column_name from information_schema.columns where table_schema = $1 and data_type = 'numeric'`, [stack.viewsSchema])
    ).map((r) => `${r.table_name}.${r.column_name}`);
    expect(amounts.length).toBeGreaterThan(40);
    expect(amounts.filter((a) => !rows.includes(a)).sort()).toEqual([]);
  });
});
