// Every code block of docs/analysts.md runs as written against the indexed devnet of this run, in each
// place its fence says (`runs=`): its SQL in the machine's psql (15: no `\bind`) with psql variables, on
// Postgres through a driver that binds `$1` (and in psql as a prepared statement, as the guide says), and/or
// over Ponder's /sql as @ponder/client sends it; its GraphQL on Ponder's /graphql; its @ponder/client scripts,
// which are the files of examples/analyst-client/, run with that folder's tsx from a copy of the folder
// whose node_modules holds only what its package.json names (and they typecheck there); its shell with bash.
// Each answers rows. A block that says nothing of where it runs fails the test, and so does SQL said to run on
// Postgres only that /sql would take. The guide's units table names every amount column of the views, and
// its word on addresses (lowercase, but activity.subject) holds on the devnet's data.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import postgres from "postgres";
import { getAddress } from "viem";
import { linkBins, linkPackages, packageClosure } from "../helpers/package-closure.js";

const run = promisify(execFile);
const stack = inject("stack");
const root = join(import.meta.dirname, "..", "..");
const guide = readFileSync(join(root, "docs", "analysts.md"), "utf8");
/** The indexer's address in the guide; the blocks that name it run against this run's indexer instead. */
const GUIDE_URL = "http://localhost:42069";
const PLACES = ["psql", "postgres", "/sql", "graphql", "client", "shell"] as const;
/** The folder of the @ponder/client examples: each `runs=client` block is its file `<example>.ts`. */
const CLIENT_FOLDER = join(root, "examples", "analyst-client");
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
/** A copy of examples/analyst-client with only its packages; and a folder for the psql files. */
let scripts: string;
let work: string;
let packages: string[];
afterAll(async () => {
  await sql.end();
  for (const dir of [scripts, work]) if (dir) rmSync(dir, { recursive: true, force: true });
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
  work = mkdtempSync(join(tmpdir(), "analysts-guide-"));
  // The examples' folder as an analyst has it after `npm install`, away from any checkout: its files, and a
  // node_modules of the packages its package.json names and their dependencies (hard links to this
  // checkout's, so nothing is downloaded), with their .bin.
  scripts = mkdtempSync(join(tmpdir(), "analyst-client-"));
  cpSync(CLIENT_FOLDER, scripts, { recursive: true, filter: (source) => !source.includes("node_modules") });
  packages = packageClosure(JSON.parse(readFileSync(join(CLIENT_FOLDER, "package.json"), "utf8")), root);
  linkPackages(packages, root, scripts);
  linkBins(packages, root, scripts);
});

/** The version of the machine's psql: [major, text]. */
async function psqlVersion(): Promise<[number, string]> {
  const { stdout } = await run("psql", ["--version"]);
  return [Number(/(\d+)\.\d+/.exec(stdout)![1]), stdout.trim()];
}

/** `code` run by the machine's psql on the indexed database, the views schema as its search path; the CSV rows it printed. */
async function viaPsql(name: string, code: string, variables: [string, string][] = []): Promise<string[]> {
  const file = join(work, `${name}.sql`);
  writeFileSync(file, code);
  const args = ["-X", "-q", "--csv", "-v", "ON_ERROR_STOP=1", ...variables.flatMap(([k, v]) => ["-v", `${k}=${v}`]), "-f", file, stack.databaseUrl];
  const { stdout } = await run("psql", args, { env: { ...process.env, PGOPTIONS: `-c search_path=${stack.viewsSchema}` } });
  return stdout.split("\n").filter(Boolean).slice(1); // less the header
}

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

  it("has the three questions in SQL (psql and bound parameters), GraphQL and @ponder/client", () => {
    const names = new Set(blocks.flatMap((b) => b.runs.map((r) => `${b.name}:${r}`)));
    for (const name of ["owner-activity", "vault-deposits", "busiest-markets"])
      for (const place of ["psql", "postgres", "/sql", "graphql", "client"]) expect(names, `${name} in ${place}`).toContain(`${name}:${place}`);
  });

  it("needs nothing of psql 16: no block uses \\bind, and the machine's psql is 15 or later", async () => {
    const [major, text] = await psqlVersion();
    console.log(`psql: ${text}`);
    expect(major).toBeGreaterThanOrEqual(15);
    for (const b of blocks) expect(b.code, `line ${b.line}`).not.toMatch(/\\bind\b/);
    // Every SQL block runs in psql, as written or as a prepared statement.
    for (const b of blocks.filter((x) => x.language === "sql"))
      expect(
        b.runs.some((r) => r === "psql" || r === "postgres"),
        `line ${b.line}`,
      ).toBe(true);
  });

  it.each(runningIn("psql"))("psql (the machine's, with psql variables): %s", async (_, b) => {
    // Addresses as a user may paste them: the queries lowercase them.
    const rows = await viaPsql(
      b.name,
      b.code,
      b.params.map((p, i) => [p, checksummed(b)[i]!]),
    );
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(runningIn("postgres"))("Postgres, through a driver binding $1: %s", async (_, b) => {
    const rows = await sql.unsafe(b.code, paramsOf(b) as string[]);
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(runningIn("postgres"))("psql, as a prepared statement (prepare q as …; execute q(…)): %s", async (_, b) => {
    const literal = (v: string) => `'${v.replaceAll("'", "''")}'`;
    const code = `prepare q as ${b.code.trim().replace(/;$/, "")};\nexecute q${b.params.length ? `(${checksummed(b).map(literal).join(", ")})` : ""};\n`;
    expect((await viaPsql(`${b.name}-prepared`, code)).length).toBeGreaterThan(0);
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

  it("shows the @ponder/client examples as they are in examples/analyst-client, whose node_modules holds only its own packages", () => {
    const files = readdirSync(CLIENT_FOLDER).filter((f) => f.endsWith(".ts") && f !== "schema.ts");
    expect(
      runningIn("client")
        .map(([name]) => `${name}.ts`)
        .sort(),
    ).toEqual(files.sort());
    for (const [name, b] of runningIn("client")) expect(b.code, name).toBe(readFileSync(join(CLIENT_FOLDER, `${name}.ts`), "utf8"));
    // None of the service's: no ponder (which the service's schema imports), no viem, no hono.
    const names = packages.map((p) => p.slice(join(root, "node_modules").length + 1));
    console.log(`examples/analyst-client: ${names.length} packages (${names.join(", ")})`);
    for (const service of ["ponder", "viem", "hono", "kysely", "pg"]) expect(existsSync(join(scripts, "node_modules", service)), service).toBe(false);
    expect(names.length).toBeLessThan(30);
  });

  it.each(runningIn("client"))(
    "@ponder/client, from the examples' folder alone: %s",
    async (_, b) => {
      // `npx tsx <file> <params>` in the folder, as the guide says (npx runs node_modules/.bin/tsx).
      const { stdout } = await run(join(scripts, "node_modules", ".bin", "tsx"), [`${b.name}.ts`, ...checksummed(b)], {
        cwd: scripts,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, INDEXER_URL: stack.ponderUrl },
      });
      // Each script prints its rows: an array with something in it.
      expect(stdout.trim()).toMatch(/^\[\s*\{/);
    },
    60_000,
  );

  it("has @ponder/client scripts that typecheck (strict) in the examples' folder alone", async () => {
    const result = await run(join(scripts, "node_modules", ".bin", "tsc"), ["-p", scripts], { cwd: scripts }).catch((e: { stdout: string }) => ({
      stdout: e.stdout,
      failed: true,
    }));
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
