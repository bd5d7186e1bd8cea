// Every SQL query is parameterised: scans the service's code (every product room; tests excluded)
// with the TypeScript parser and fails on any SQL that is not built by a tagged template (kysely's
// and postgres.js's `sql`...`` bind every `${value}` as a parameter) or the query builder:
//
//   unsafe       a call of `.unsafe(...)` (postgres.js runs its text as is)
//   raw          `sql.raw` / `sql.lit` / `CompiledQuery.raw` (kysely and drizzle inline their argument)
//   template     an untagged template literal with `${...}` that reads as SQL
//   concat       `+` joining a string that reads as SQL with anything else
//   placement    a kysely query-builder call (selectFrom, insertInto, updateTable, deleteFrom, with...)
//                or a tagged `sql` template outside adapters/: every statement lives in adapters/db/,
//                named for what it reads or writes, and the use-cases call those functions
//
// unless the finding is in ALLOWED below (only adapters/db/ files), each entry with the reason it is safe. An entry that no
// longer matches anything fails too, so the list stays short and true.
//
//   npx tsx scripts/check-sql.ts        (exit 1 and one line per finding when any is not allowed)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import rooms from "./rooms.json" with { type: "json" };

export type Rule = "unsafe" | "raw" | "template" | "concat" | "placement";
export type Finding = { file: string; line: number; rule: Rule; text: string };
export type Allowed = { file: string; rule: Rule; contains: string; why: string };

/** The reviewed exceptions: what each one runs, and why no request value can reach its text. */
export const ALLOWED: Allowed[] = [
  {
    file: "adapters/db/reads/prices.ts",
    rule: "raw",
    contains: "sql.lit(DAY_S)",
    why: "inlines DAY_S, a number constant of domain/price.ts, so the day bucket stays integer division (a bound parameter would be typed numeric)",
  },
  {
    file: "adapters/db/reads/vaults.ts",
    rule: "raw",
    contains: "sql.lit(DAY_S)",
    why: "the same day bucket over vault snapshots: DAY_S inlined, no request value",
  },
  {
    file: "adapters/db/postgres-js-dialect.ts",
    rule: "unsafe",
    contains: "target.unsafe(text, params",
    why: "runs kysely's compiled SQL (`text`: query.sql) with its parameter array: the values are bound, never inlined",
  },
  {
    file: "adapters/db/postgres-js-dialect.ts",
    rule: "unsafe",
    contains: "target.unsafe(query.sql, toParameters(query.parameters)",
    why: "the streaming form of the same: compiled SQL, bound parameters",
  },
  {
    file: "adapters/db/postgres-js-dialect.ts",
    rule: "raw",
    contains: "CompiledQuery.raw(",
    why: "transaction control of the dialect on a pinned connection: begin (isolation level and access mode from kysely's typed settings), commit, rollback; and savepoints named by kysely, quoted with quoteIdent",
  },
  {
    file: "adapters/db/ensure-database.ts",
    rule: "unsafe",
    contains: "create database",
    why: 'an identifier cannot be a bound parameter; the name comes from DATABASE_URL (operator config), quoted with "" escaped',
  },
  {
    file: "adapters/db/devnet-reset.ts",
    rule: "unsafe",
    contains: "drop schema if exists ponder_sync cascade",
    why: "a constant statement",
  },
  {
    file: "adapters/db/devnet-reset.ts",
    rule: "unsafe",
    contains: 'drop schema if exists "${schema.replace',
    why: 'an identifier from DATABASE_SCHEMA (config, a plain identifier by adapters/config.ts), quoted with "" escaped',
  },
  {
    file: "adapters/db/reads/accounts.ts",
    rule: "template",
    contains: "select v_p.vault",
    why: "the account's one statement, built once per views schema: the only interpolations are table names of VIEWS_SCHEMA (config, quoted), constant column lists and the number constant MAX_CLOSED_ITEMS; every value is a bound $n parameter",
  },
  {
    file: "adapters/db/reads/accounts.ts",
    rule: "template",
    contains: "row_number() over (partition by",
    why: "one kind's open and ended items in the account statement: a table name of VIEWS_SCHEMA (config, quoted), constant column lists and conditions written in the same file, and the number constant MAX_CLOSED_ITEMS",
  },
  {
    file: "adapters/db/reads/accounts.ts",
    rule: "template",
    contains: "string_agg(c::text, ';' order by c::text) from",
    why: "the shared rows' version in the account statement: only the checkpoint view's name in VIEWS_SCHEMA (config, quoted) and the constant CHECKPOINT_TRIGGERS_SQL of adapters/db/projection-version.ts",
  },
  {
    file: "adapters/db/reads/accounts.ts",
    rule: "template",
    contains: "'tokens', coalesce((select json_agg(json_build_object('address', tk.address",
    why: "the shared rows in the account statement: only table names of VIEWS_SCHEMA (config, quoted)",
  },
  {
    file: "adapters/db/reads/activity.ts",
    rule: "template",
    contains: "select o.i, (select",
    why: "the activity poll statement: table names of VIEWS_SCHEMA (config, quoted) and the constant JSON builders BLOCKS_JSON and CHANGE_JSON of the same file; every value is a bound $n parameter",
  },
  {
    file: "adapters/db/cursors.ts",
    rule: "template",
    contains: "select o.i, case when k.id is not null",
    why: "the poll by a stored cursor: table names of VIEWS_SCHEMA and the cursor table (both from config through kysely's own compile, quoted), the constants BLOCKS_JSON, CHANGE_JSON and POSITIONS_PER_BLOCK; every value is a bound $n parameter",
  },
  {
    file: "adapters/db/projection-version.ts",
    rule: "unsafe",
    contains: "sql.unsafe(CHECKPOINT_TRIGGERS_SQL)",
    why: "a constant of the same file (the trigger OIDs on _ponder_checkpoint, read from pg_catalog), nested in the tracker's tagged statements: no parameter, no value from outside",
  },
  {
    file: "adapters/db/reads/statement.ts",
    rule: "unsafe",
    contains: "pool.unsafe(text, params, { prepare: true })",
    why: "runs the reads' fixed statements (accounts.ts, activity.ts: table names of VIEWS_SCHEMA, quoted) as prepared statements; every value is a bound $n parameter",
  },
  {
    file: "adapters/db/reads/statement.ts",
    rule: "raw",
    contains: "CompiledQuery.raw(text, params)",
    why: "the same statements and bound parameters through a kysely dialect other than postgres.js (a test's)",
  },
];

// `select … from ${table}`: a statement whose table is interpolated, whatever its column list (JSON builders, casts).
const SQL_WORDS =
  /\b(select\s+(\*|[\w".()*]+(\s+as\s+\w+)?(\s*,\s*[\w".()*]+(\s+as\s+\w+)?)*)\s+from\s|select\s[^`]*?\sfrom\s+\$\s+\w+|insert\s+into|update\s+\S+\s+set|delete\s+from|drop\s+(table|schema|database|view|index)|create\s+(table|schema|database|index|view|or\s+replace)|alter\s+(table|schema)|truncate\s+\S+|grant\s+\S+)\b/i;

const repoRoot = join(fileURLToPath(new URL(".", import.meta.url)), "..");
export const SCANNED = rooms.product;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (/\.(ts|mts|tsx)$/.test(name) && !/\.(test|spec)\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** kysely's statement starters: a call of one of these on anything is a statement being built. */
const BUILDER_CALLS = ["selectFrom", "insertInto", "updateTable", "deleteFrom", "replaceInto", "mergeInto", "selectNoFrom"];
/** `with` / `withRecursive` are kysely's only when named by a string and given a query callback. */
const CTE_CALLS = ["with", "withRecursive"];

/** Whether the file is in adapters/, the one room where statements are written. */
const inAdapters = (file: string) => file.replace(/\\/g, "/").startsWith("adapters/");

function isStatement(node: ts.Node): boolean {
  if (ts.isTaggedTemplateExpression(node)) return ts.isIdentifier(node.tag) && node.tag.text === "sql";
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return false;
  const name = node.expression.name.text;
  if (BUILDER_CALLS.includes(name)) return true;
  const [first, second] = node.arguments;
  return CTE_CALLS.includes(name) && first !== undefined && ts.isStringLiteralLike(first) && second !== undefined && ts.isArrowFunction(second);
}

/** The SQL findings of one source text (pure: for the check's own tests). */
export function findingsOf(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Finding[] = [];
  const add = (node: ts.Node, rule: Rule) => {
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    found.push({ file, line: line + 1, rule, text: node.getText(sf).replace(/\s+/g, " ").slice(0, 200) });
  };
  const literalText = (node: ts.Node): string | undefined => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => ` $ ${s.literal.text}`).join("");
    return undefined;
  };
  const insideUnsafe = (node: ts.Node): boolean => {
    for (let p = node.parent; p; p = p.parent) {
      // The call is reported itself (unsafe, raw): its argument is not a second finding.
      if (ts.isCallExpression(p) && ts.isPropertyAccessExpression(p.expression) && ["unsafe", "raw", "lit"].includes(p.expression.name.text)) return true;
    }
    return false;
  };
  const visit = (node: ts.Node) => {
    if (!inAdapters(file) && isStatement(node)) add(node, "placement");
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "unsafe") add(node, "unsafe");
    else if (
      ts.isPropertyAccessExpression(node) &&
      ["raw", "lit"].includes(node.name.text) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "sql"
    )
      // The call with its argument (`sql.lit(DAY_S)`), so an allow-list entry names the exact call.
      add(ts.isCallExpression(node.parent) && node.parent.expression === node ? node.parent : node, "raw");
    else if (ts.isPropertyAccessExpression(node) && node.name.text === "raw" && ts.isIdentifier(node.expression) && node.expression.text === "CompiledQuery")
      add(node.parent, "raw");
    else if (ts.isTemplateExpression(node) && !ts.isTaggedTemplateExpression(node.parent) && SQL_WORDS.test(literalText(node) ?? "") && !insideUnsafe(node))
      add(node, "template");
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const sides = [literalText(node.left), literalText(node.right)];
      if (sides.some((text) => text !== undefined && SQL_WORDS.test(text)) && !insideUnsafe(node)) add(node, "concat");
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

export type CheckResult = { findings: Finding[]; refused: Finding[]; unusedAllowed: Allowed[]; files: number };

/** Scans the service's code; `refused` are the findings no ALLOWED entry covers. */
export function checkSql(root = repoRoot, allowed = ALLOWED): CheckResult {
  const files = SCANNED.flatMap((dir) => filesUnder(join(root, dir)));
  const findings = files.flatMap((path) => findingsOf(relative(root, path), readFileSync(path, "utf8")));
  const covers = (a: Allowed, f: Finding) => a.file === f.file && a.rule === f.rule && f.text.includes(a.contains);
  return {
    files: files.length,
    findings,
    refused: findings.filter((f) => !allowed.some((a) => covers(a, f))),
    unusedAllowed: allowed.filter((a) => !findings.some((f) => covers(a, f))),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = checkSql();
  for (const f of result.refused) console.error(`${f.file}:${f.line}: ${f.rule}: ${f.text}`);
  for (const a of result.unusedAllowed) console.error(`scripts/check-sql.ts: ALLOWED entry matches nothing any more: ${a.file} ${a.rule} "${a.contains}"`);
  const bad = result.refused.length + result.unusedAllowed.length;
  console.log(`check-sql: ${result.files} files, ${result.findings.length} reviewed findings, ${bad} problems`);
  process.exit(bad ? 1 : 0);
}
