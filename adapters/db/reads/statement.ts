// Hand-written read statements over the views schema, run as postgres.js prepared statements on the
// reads pool itself: no kysely executor, no CamelCasePlugin pass over the rows, no numeric-to-bigint
// parsing. For the hottest reads (an account, an activity poll), whose answer Postgres assembles as
// one JSON text (adapters/db/reads/accounts.ts, activity.ts).
import { CompiledQuery, type Kysely } from "kysely";
import { Batcher, type BatcherOptions } from "../batcher.js";
import { PostgresJsAdapter, resentOnce } from "../postgres-js-dialect.js";
import type { Projections } from "../projections.js";
import { ReadStatementState } from "./statement-state.js";

/** A statement's text for a schema: `t(table)` names a table in it (the views schema, or unqualified). */
export type StatementText = (t: (table: string) => string) => string;

type Params = (string | number | null)[];

/**
 * The pool's state behind `reads` (made with it: createProjectionsDb), or a state of this call only for a
 * Kysely made without one (a test's: its schema read off a compiled query).
 */
function stateOf(reads: Kysely<Projections>): ReadStatementState {
  const adapter = reads.getExecutor().adapter;
  if (adapter instanceof PostgresJsAdapter && adapter.readStatements) return adapter.readStatements;
  const compiled = reads.selectFrom("token").select("address").compile().sql;
  return new ReadStatementState(/from "([^"]+)"\."token"/.exec(compiled)?.[1] ?? "");
}

/** `cancelAfterMs`: the statement is cancelled (rejecting with 57014 query_canceled) when it has not answered by then. */
async function run(reads: Kysely<Projections>, text: string, params: Params, cancelAfterMs?: number): Promise<unknown[]> {
  const adapter = reads.getExecutor().adapter;
  // Another dialect (a test's) goes through kysely as any raw query would.
  if (!(adapter instanceof PostgresJsAdapter)) return (await reads.executeQuery(CompiledQuery.raw(text, params))).rows as unknown[];
  // On standbys (DATABASE_READ_URL) the pool is picked per statement: adapters/db/read-targets.ts.
  const pool = await adapter.pool();
  return resentOnce(async () => {
    const query = pool.unsafe(text, params, { prepare: true });
    if (cancelAfterMs === undefined) return (await query) as unknown[];
    const timer = setTimeout(() => void query.cancel(), cancelAfterMs);
    try {
      return (await query) as unknown[];
    } finally {
      clearTimeout(timer);
    }
  });
}

/** Runs `statement` (built once per schema) with `params`, as a prepared statement; answers its rows. */
export async function runStatement<Row>(reads: Kysely<Projections>, statement: StatementText, params: Params, cancelAfterMs?: number): Promise<Row[]> {
  const state = stateOf(reads);
  let text = state.texts.get(statement);
  if (text === undefined) {
    const schema = state.schema;
    text = statement((table) => (schema ? `"${schema}"."${table}"` : `"${table}"`));
    state.texts.set(statement, text);
  }
  return (await run(reads, text, params, cancelAfterMs)) as Row[];
}

/** What the caller of `statement` keeps beside it on the pool of `reads`: made by `make` the first time. */
export function keptWith<T>(reads: Kysely<Projections>, statement: StatementText, make: () => T): T {
  const state = stateOf(reads);
  let kept = state.kept.get(statement) as T | undefined;
  if (kept === undefined) state.kept.set(statement, (kept = make()));
  return kept;
}

/**
 * How read statements are batched: up to 64 entries, a few statements at once, so one entry that reads
 * much (an owner with many open items or changes) delays only the batch it is in.
 */
const READ_BATCHES: BatcherOptions = { maxBatch: 64, maxInFlight: 4 };

/**
 * Runs a batched `statement` for `entry`, together with the entries asked for at the same moment
 * (adapters/db/batcher.ts): its one parameter, $1, is a JSON array of the entries, each with its index
 * `i`, and it answers a row per entry with that `i`. A JSON array, not arrays: Postgres estimates its
 * rows alike whatever their count, so the statement keeps one generic plan (an array's exact count made
 * every call plan anew). Answers this entry's row; undefined only from a driver that runs nothing (a test's).
 */
export async function runBatched<Row>(reads: Kysely<Projections>, statement: StatementText, entry: object): Promise<Row | undefined> {
  return (await batcherOf<Row, undefined>(reads, statement, undefined).load(entry)).row;
}

/**
 * A value of the whole batch beside its entries (runBatchedWith): taken as the batch is sent, it goes to
 * the statement as $2 (`param`), and the statement may answer a row of the batch's own (`i` = -1).
 * `fallback`: a statement of the same parameters and rows that runs instead when this one has not answered
 * within `afterMs` (this one is then cancelled), e.g. one that reads no table a lock may hold up.
 */
export type BatchValue<T> = { take: () => T; param: (taken: T) => string | null; fallback?: { statement: StatementText; afterMs: number } };
export type BatchedRow<Row, T> = { row: Row | undefined; batch: Row | undefined; taken: T };

/**
 * As runBatched, with a batch value: answers the entry's row, the batch's own row and the value taken
 * for the batch it went in. `value` is the statement's for this `reads` (the first call's is kept).
 */
export function runBatchedWith<Row, T>(reads: Kysely<Projections>, statement: StatementText, entry: object, value: BatchValue<T>): Promise<BatchedRow<Row, T>> {
  return batcherOf<Row, T>(reads, statement, value).load(entry);
}

/** 57014 query_canceled: a statement stopped by a cancel request. */
const isCancel = (error: unknown) => (error as { code?: string } | undefined)?.code === "57014";

function batcherOf<Row, T>(reads: Kysely<Projections>, statement: StatementText, value: BatchValue<T> | undefined): Batcher<object, BatchedRow<Row, T>> {
  const state = stateOf(reads);
  let batcher = state.batchers.get(statement) as Batcher<object, BatchedRow<unknown, unknown>> | undefined;
  if (!batcher) {
    batcher = new Batcher<object, BatchedRow<unknown, unknown>>(async (entries) => {
      const json = JSON.stringify(entries.map((e, i) => ({ i, ...e })));
      const taken = value?.take();
      const params = value ? [json, value.param(taken as T)] : [json];
      const fallback = value?.fallback;
      const rows = await runStatement<{ i: number }>(reads, statement, params, fallback?.afterMs).catch(async (error: unknown) => {
        if (!fallback || !isCancel(error)) throw error;
        // Once more if the fallback is cancelled too. CI once saw the fallback itself answer 57014, we believe
        // from the cancel meant for the statement before it: a cancel request reaches Postgres on a connection
        // of its own and stops whatever the backend runs when it lands. Not reproduced here.
        return runStatement<{ i: number }>(reads, fallback.statement, params).catch((again: unknown) => {
          if (!isCancel(again)) throw again;
          return runStatement<{ i: number }>(reads, fallback.statement, params);
        });
      });
      const byIndex = new Map(rows.map((row) => [row.i, row]));
      const batch = byIndex.get(-1);
      return entries.map((_, i) => ({ row: byIndex.get(i), batch, taken }));
    }, READ_BATCHES);
    state.batchers.set(statement, batcher);
  }
  return batcher as Batcher<object, BatchedRow<Row, T>>;
}
