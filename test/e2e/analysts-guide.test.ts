// Every code block of docs/analysts.md runs as written against the indexed devnet of this run, in each
// place its fence says (`runs=`): its SQL on Postgres with `agent_views` as the search path and/or over
// Ponder's /sql as @ponder/client sends it, its GraphQL on Ponder's /graphql, its @ponder/client scripts
// with tsx from a directory laid out as a checkout's root (and they typecheck), its shell with bash. Each
// answers rows. A block that says nothing of where it runs fails the test, and so does SQL said to run on
// Postgres only that /sql would take. The guide's units table names every amount column of the views, and
// its word on addresses (lowercase, but activity.subject) holds on the devnet's data.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import postgres from "postgres";
import { getAddress } from "viem";

const run = promisify(execFile);
const stack = inject("stack");
const root = join(import.meta.dirname, "..", "..");
const guide = readFileSync(join(root, "docs", "analysts.md"), "utf8");
/** The indexer's address in the guide; the blocks that name it run against this run's indexer instead. */
const GUIDE_URL = "http://localhost:42069";
const PLACES = ["postgres", "/sql", "graphql", "client", "shell"] as const;
type Place = (typeof PLACES)[number];

type Block = { line: number; language: string; runs: string[]; name: string; params: string[]; code: string };
const blocks: Block[] = [...guide.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => {
  const [language = "", ...words] = m[1]!.trim().split(/\s+/);
  const attrs = Object.fromEntries(words.map((w) => w.split("=") as [string, string]));
  return {
    line: guide.slice(0, m.index).split("\n").length,
    language,
    runs: attrs.runs ? attrs.runs.split(",") : [],
    name: attrs.example ?? `line ${guide.slice(0, m.index).split("\n").length}`,
    params: attrs.params ? attrs.params.split(",") : [],
    code: m[2]!,
  };
});
const runningIn = (place: Place) => blocks.filter((b) => b.runs.includes(place)).map((b) => [b.name, b] as const);

// A plain client, as an analyst's: numerics come back as the strings Postgres sends; the search path is
// the views schema, as the guide tells analysts to set it.
const sql = postgres(stack.databaseUrl, { max: 2, onnotice: () => {}, connection: { search_path: stack.viewsSchema } });
const values: Record<string, string | number> = {};
let scripts: string;
afterAll(async () => {
  await sql.end();
  if (scripts) rmSync(scripts, { recursive: true, force: true });
});

beforeAll(async () => {
  // The wallet with the most changes, and the vault with the most recent deposit request.
  const [owner] = await sql`select owner from activity group by owner order by count(*) desc limit 1`;
  const [vault] = await sql`select vault from deposit_request order by requested_at desc limit 1`;
  values.owner = owner!.owner as string;
  values.vault = vault!.vault as string;
  const now = Math.floor(Date.now() / 1000);
  values.week_ago = now - 7 * 86400;
  values.day_ago = now - 86400;
  // A checkout's root, as far as the scripts can tell: its package.json's module type, its node_modules
  // and its ponder.schema.ts.
  scripts = mkdtempSync(join(tmpdir(), "analysts-guide-"));
  writeFileSync(join(scripts, "package.json"), JSON.stringify({ type: "module" }));
  symlinkSync(join(root, "node_modules"), join(scripts, "node_modules"));
  symlinkSync(join(root, "ponder.schema.ts"), join(scripts, "ponder.schema.ts"));
  for (const [, b] of runningIn("client")) writeFileSync(join(scripts, `${b.name}.ts`), b.code.replaceAll(GUIDE_URL, stack.ponderUrl));
});

/** The query as @ponder/client sends it: a GET of /sql/db, the query and its parameters in superjson's envelope. */
async function overSql(query: string, params: unknown[]): Promise<{ status: number; text: string }> {
  const url = new URL(`${stack.ponderUrl}/sql/db`);
  url.searchParams.set("sql", JSON.stringify({ json: { sql: query, params } }));
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

const paramsOf = (b: Block) => b.params.map((p) => values[p]!);
/** Addresses as a user may paste them: GraphQL and @ponder/client lowercase them, says the guide. */
const checksummed = (b: Block) =>
  b.params.map((p) => (typeof values[p] === "string" && /^0x[0-9a-f]{40}$/.test(values[p]) ? getAddress(values[p]) : String(values[p])));

describe("docs/analysts.md", () => {
  it("says where every code block runs", () => {
    expect(blocks.length).toBeGreaterThan(10);
    for (const b of blocks) {
      expect(b.runs, `the block at line ${b.line} says where it runs (runs=${PLACES.join("|")})`).not.toEqual([]);
      for (const place of b.runs) expect(PLACES, `line ${b.line}`).toContain(place);
      for (const p of b.params) expect(Object.keys(values), `line ${b.line}: parameter ${p}`).toContain(p);
    }
  });

  it("has the three questions in SQL, GraphQL and @ponder/client", () => {
    const names = new Set(blocks.flatMap((b) => b.runs.map((r) => `${b.name}:${r}`)));
    for (const name of ["owner-activity", "vault-deposits", "busiest-markets"])
      for (const place of ["postgres", "/sql", "graphql", "client"]) expect(names, `${name} in ${place}`).toContain(`${name}:${place}`);
  });

  it.each(runningIn("postgres"))("Postgres: %s", async (_, b) => {
    const rows = await sql.unsafe(b.code, paramsOf(b) as string[]);
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(runningIn("/sql"))("/sql: %s", async (_, b) => {
    const { status, text } = await overSql(b.code, paramsOf(b));
    expect(status, text).toBe(200);
    expect((JSON.parse(text) as { rows: unknown[] }).rows.length).toBeGreaterThan(0);
  });

  it.each(blocks.filter((b) => b.runs.includes("postgres") && !b.runs.includes("/sql")).map((b) => [b.name, b] as const))(
    "/sql refuses what runs on Postgres only: %s",
    async (_, b) => {
      const { status, text } = await overSql(b.code, paramsOf(b));
      expect(status, text).toBe(500);
      // The reason the first time ("Function call not supported"), then Ponder's cached refusal.
      expect(text).toMatch(/not supported|^Invalid query$/);
    },
  );

  it.each(runningIn("graphql"))("GraphQL: %s", async (_, b) => {
    const res = await fetch(`${stack.ponderUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: b.code, variables: Object.fromEntries(b.params.map((p, i) => [p, checksummed(b)[i]])) }),
    });
    const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(res.status).toBe(200);
    // Every list in the answer has items: the examples ask about things the devnet has.
    const lists = JSON.stringify(body.data).match(/"items":\[[^\]]/g) ?? [];
    expect(lists.length, JSON.stringify(body.data).slice(0, 300)).toBeGreaterThan(0);
  });

  it.each(runningIn("client"))(
    "@ponder/client: %s",
    async (_, b) => {
      const file = join(scripts, `${b.name}.ts`);
      // `npx tsx <file> <params>` from the checkout's root, as the guide says.
      const { stdout } = await run(process.execPath, ["--import", "tsx", file, ...checksummed(b)], { cwd: scripts, env: { ...process.env, BASE_URL: "" } });
      // Each script prints its rows: an array with something in it.
      expect(stdout.trim()).toMatch(/^\[\s*\{/);
    },
    60_000,
  );

  it("has @ponder/client scripts that typecheck (strict) against the schema", async () => {
    writeFileSync(
      join(scripts, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] },
        include: ["*.ts"],
      }),
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", scripts]).catch((e: { stdout: string }) => ({ stdout: e.stdout, failed: true }));
    expect(result, result.stdout).not.toHaveProperty("failed");
  }, 120_000);

  it.each(runningIn("shell"))("shell: %s", async (_, b) => {
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", b.code.replaceAll(GUIDE_URL, stack.ponderUrl)]);
    expect((JSON.parse(stdout) as { rows: unknown[] }).rows.length).toBeGreaterThan(0);
  });

  it("is right about addresses: lowercase everywhere but activity.subject, so a checksummed one matches nothing in SQL", async () => {
    const columns = await sql`select table_name, column_name from information_schema.columns
      where table_schema = ${stack.viewsSchema} and data_type in ('text', 'json', 'jsonb') and left(table_name, 1) <> '_'`;
    const mixed: string[] = [];
    for (const { table_name, column_name } of columns) {
      const [hit] = await sql`select 1 from ${sql(table_name as string)} where ${sql(column_name as string)}::text ~ '0x[0-9a-fA-F]*[A-F]' limit 1`;
      if (hit) mixed.push(`${table_name}.${column_name}`);
    }
    expect(mixed.filter((c) => c !== "activity.subject")).toEqual([]);
    const owner = getAddress(values.owner as string);
    expect(await sql`select 1 from activity where owner = ${owner}`).toHaveLength(0);
    expect(await sql`select 1 from activity where owner = lower(${owner})`).not.toHaveLength(0);
    const { text } = await overSql("select owner from activity where owner = $1", [owner]);
    expect((JSON.parse(text) as { rows: unknown[] }).rows).toEqual([]);
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
