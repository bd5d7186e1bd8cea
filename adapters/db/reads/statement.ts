// Hand-written read statements over the views schema, run as postgres.js prepared statements on the
// reads pool itself: no kysely executor, no CamelCasePlugin pass over the rows, no numeric-to-bigint
// parsing. For the hottest reads (an account, an activity poll), whose answer Postgres assembles as
// one JSON text (adapters/db/reads/accounts.ts, activity.ts).
import { CompiledQuery, type Kysely } from "kysely";
import { PostgresJsAdapter } from "../postgres-js-dialect.js";
import type { Projections } from "../projections.js";

/** A statement's text for a schema: `t(table)` names a table in it (the views schema, or unqualified). */
export type StatementText = (t: (table: string) => string) => string;

type Params = (string | number | null)[];
type Bound = { run: (text: string, params: Params) => Promise<unknown[]>; schema: string | undefined; texts: Map<StatementText, string> };
const bound = new WeakMap<object, Bound>();

/** The pool and views schema behind `reads` (read once per Kysely: the schema off a compiled query). */
function bind(reads: Kysely<Projections>): Bound {
  let b = bound.get(reads);
  if (!b) {
    const adapter = reads.getExecutor().adapter;
    const compiled = reads.selectFrom("token").select("address").compile().sql;
    // Another dialect (a test's that runs nothing) goes through kysely as any raw query would.
    const run =
      adapter instanceof PostgresJsAdapter
        ? async (text: string, params: Params) => (await adapter.sql.unsafe(text, params, { prepare: true })) as unknown[]
        : async (text: string, params: Params) => (await reads.executeQuery(CompiledQuery.raw(text, params))).rows as unknown[];
    b = { run, schema: /from "([^"]+)"\."token"/.exec(compiled)?.[1], texts: new Map() };
    bound.set(reads, b);
  }
  return b;
}

/** Runs `statement` (built once per schema) with `params`, as a prepared statement; answers its rows. */
export async function runStatement<Row>(reads: Kysely<Projections>, statement: StatementText, params: Params): Promise<Row[]> {
  const b = bind(reads);
  let text = b.texts.get(statement);
  if (text === undefined) {
    const schema = b.schema;
    text = statement((table) => (schema ? `"${schema}"."${table}"` : `"${table}"`));
    b.texts.set(statement, text);
  }
  return (await b.run(text, params)) as Row[];
}
