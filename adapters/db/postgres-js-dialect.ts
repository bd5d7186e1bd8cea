// A kysely dialect over postgres.js that runs kysely-compiled SQL as postgres.js prepared statements.
//
// Why not kysely-postgres-js: it reserves a connection for every query and sends each query
// unprepared; kysely over pg is slower still (DESIGN "Read speed": ~2.3k point-selects/s against
// ~7.4k/s for compiled SQL run as postgres.js prepared statements). Here a plain query goes to the
// pool (postgres.js pipelines it on a free connection, prepared once per connection), while a
// transaction holds one connection from BEGIN to COMMIT/ROLLBACK through postgres.js's own `begin`.
//
// Not through `sql.reserve()`: in postgres.js 3.4.9 a reserve that queues for a connection is lost when
// a connection of the pool closes meanwhile (its pool hands the waiter to the closed connection's
// reconnect, which drops it: porsager/postgres#1195), and the transaction waits for good. The pool's
// idle timeout closes connections on its own, so a worker's grading pass hung that way (issue 51).
// `begin` sends BEGIN as a plain query, which a reconnect does run.
//
// Deadlines (adapters/deadline.ts): a statement or BEGIN run under a job's deadline is noted as what the
// job waits on; at the deadline the statement is cancelled, the transaction rolled back (its connection
// goes back to the pool) and any later statement of the job refused.
//
// Pinning: `db.connection()` outside a transaction is NOT pinned to one session in the default
// (pooled) mode. Session state (SET, session advisory locks, temp tables) needs `pinned: true`,
// which reserves a connection for every acquisition (the migrator uses that mode).
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type MigrationLockOptions,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import type { ReservedSql, Sql, TransactionSql } from "postgres";
import type { ReadRoute } from "./read-targets.js";
import type { ReadStatementState } from "./reads/statement-state.js";
import { currentDeadline, waitOn, type DeadlineScope } from "../deadline.js";

export type PostgresJsDialectConfig = {
  /** The postgres.js pool. */
  sql: Sql;
  /** Reserve a connection for every acquisition (session semantics for `db.connection()`). */
  pinned?: boolean;
  /** `db.destroy()` ends the pool (default true; false when the pool is shared). */
  endOnDestroy?: boolean;
  /**
   * Reads on standbys (adapters/db/read-targets.ts): the pool of each acquisition is the route's pick
   * (`sql` when it picks the primary); `db.destroy()` closes the route too.
   */
  route?: ReadRoute;
  /** A reads pool's statement texts, batchers and what their callers keep (adapters/db/reads/statement.ts). */
  readStatements?: ReadStatementState;
};

export class PostgresJsDialect implements Dialect {
  readonly config: PostgresJsDialectConfig;
  constructor(config: PostgresJsDialectConfig) {
    this.config = config;
  }
  createAdapter(): DialectAdapter {
    return new PostgresJsAdapter(this.config);
  }
  createDriver(): Driver {
    return new PostgresJsDriver(this.config);
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

/**
 * PostgresAdapter that also carries the pool, so code holding only a Kysely (the migrator) can
 * open a pinned one over the same pool: `db.getExecutor().adapter`.
 */
export class PostgresJsAdapter extends PostgresAdapter {
  readonly sql: Sql;
  readonly pinned: boolean;
  readonly readStatements: ReadStatementState | undefined;
  readonly #route: ReadRoute | undefined;
  constructor(config: PostgresJsDialectConfig) {
    super();
    this.sql = config.sql;
    this.pinned = config.pinned ?? false;
    this.readStatements = config.readStatements;
    this.#route = config.route;
  }
  /** The pool one read runs on: the route's pick, or `sql`. */
  pool(): Promise<Sql> {
    return this.#route ? this.#route.pick() : Promise.resolve(this.sql);
  }
  // Kysely's migration lock is a session advisory lock taken through `db.connection()`: on pooled
  // connections its lock and unlock could land on different sessions and leak the lock.
  override async acquireMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    if (!this.pinned) throw new Error("migrations need a pinned connection: use migrateToLatest from adapters/db/connect.ts");
    await super.acquireMigrationLock(db, options);
  }
}

class PostgresJsDriver implements Driver {
  readonly #config: PostgresJsDialectConfig;
  constructor(config: PostgresJsDialectConfig) {
    this.#config = config;
  }
  async init(): Promise<void> {}

  async acquireConnection(): Promise<PostgresJsConnection> {
    const connection = new PostgresJsConnection(this.#config.route ? await this.#config.route.pick() : this.#config.sql);
    if (this.#config.pinned) await connection.reserve();
    return connection;
  }

  async beginTransaction(connection: PostgresJsConnection, settings: TransactionSettings): Promise<void> {
    let mode = "";
    if (settings.isolationLevel) mode += `isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) mode += ` ${settings.accessMode}`;
    await connection.begin(mode.trim());
  }

  async commitTransaction(connection: PostgresJsConnection): Promise<void> {
    await connection.end(true);
  }

  async rollbackTransaction(connection: PostgresJsConnection): Promise<void> {
    await connection.end(false);
  }

  async savepoint(connection: PostgresJsConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: PostgresJsConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: PostgresJsConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`));
  }

  async releaseConnection(connection: PostgresJsConnection): Promise<void> {
    connection.release();
  }

  async destroy(): Promise<void> {
    await this.#config.route?.close();
    if (this.#config.endOnDestroy !== false) await this.#config.sql.end({ timeout: 5 });
  }
}

type Rows = Awaited<ReturnType<Sql["unsafe"]>>;

/** A rollback asked for by kysely or by the deadline: the body of postgres.js's `begin` rejects with it. */
const ROLLBACK = Symbol("rollback");

type OpenTransaction = {
  sql: TransactionSql;
  /** Ends the body: postgres.js then commits (true) or rolls back, and gives the connection back. */
  finish: (commit: boolean) => void;
  /** postgres.js's `begin`: settles once COMMIT or ROLLBACK has run. */
  done: Promise<unknown>;
  /** Rolled back by the deadline (the reason), not by kysely. */
  abandoned?: unknown;
};

/**
 * Errors of a pool's statement that was never sent: its connection never opened (CONNECT_TIMEOUT); or the
 * connection's previous backend was terminated during a statement (57P01 admin shutdown, 57P02 crash), and
 * postgres.js 3.4.9 keeps that FATAL and rejects with it the first statement waiting for the connection's
 * reconnection (porsager/postgres#1215, #1223; minutes later in the soak, after a Postgres restart). A
 * statement in flight when its backend is terminated fails with CONNECTION_CLOSED instead, so these two
 * codes reach a statement only before it was sent.
 */
const NEVER_SENT: ReadonlySet<string> = new Set(["CONNECT_TIMEOUT", "57P01", "57P02"]);

/** A pool's statement, sent once more when it failed before it was sent (NEVER_SENT): safe whatever it does. */
export async function resentOnce<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!NEVER_SENT.has((error as { code?: unknown }).code as string)) throw error;
    return await send();
  }
}

class PostgresJsConnection implements DatabaseConnection {
  readonly #pool: Sql;
  /** The deadline of the code that acquired this connection (a job's), if any. */
  readonly #deadline: DeadlineScope | undefined = currentDeadline();
  #reserved: ReservedSql | undefined;
  #tx: OpenTransaction | undefined;
  /** A transaction on the pinned connection (BEGIN sent on it): its session holds the migrator's lock. */
  #pinnedTx = false;
  constructor(pool: Sql) {
    this.#pool = pool;
  }

  /** Pinned mode only (the migrator's session lock): see the head comment for why transactions do not reserve. */
  async reserve(): Promise<void> {
    this.#reserved ??= await this.#pool.reserve();
  }

  release(): void {
    this.#reserved?.release();
    this.#reserved = undefined;
  }

  /** BEGIN on a connection of the pool, held by postgres.js's `begin` until `end` (pinned: on the pinned one). */
  async begin(mode: string): Promise<void> {
    if (this.#reserved) {
      // Pinned mode: the transaction must be this session's (a pool of one would otherwise wait on itself).
      await this.executeQuery(CompiledQuery.raw(`begin ${mode}`.trim()));
      this.#pinnedTx = true;
      return;
    }
    let enter!: (tx: TransactionSql) => void;
    const entered = new Promise<TransactionSql>((resolve) => (enter = resolve));
    let finish!: (commit: boolean) => void;
    const body = new Promise<void>((resolve, reject) => (finish = (commit) => (commit ? resolve() : reject(ROLLBACK))));
    let gaveUp = false;
    const done = this.#pool.begin(mode, (tx) => {
      // BEGIN ran after the deadline gave up waiting for it: roll back at once.
      if (gaveUp) finish(false);
      else enter(tx);
      return body;
    });
    done.catch(() => {}); // observed by `end`, or by the wait below when BEGIN fails
    try {
      const sql = await waitOn(
        `BEGIN (a connection of the pool, ${this.#pool.options.max} at most)`,
        Promise.race([entered, done.then(() => Promise.reject(new Error("the transaction ended before it began")))]),
      );
      this.#tx = { sql, finish, done };
    } catch (error) {
      gaveUp = true;
      throw error;
    }
    // At the deadline: roll back (a statement in flight is cancelled by its own wait), the connection goes back.
    const deadline = this.#deadline;
    if (!deadline) return;
    const tx = this.#tx;
    const onAbort = () => {
      if (this.#tx !== tx || tx.abandoned) return;
      tx.abandoned = deadline.signal.reason ?? new Error("deadline");
      tx.finish(false);
    };
    if (deadline.signal.aborted) onAbort();
    else deadline.signal.addEventListener("abort", onAbort, { once: true });
    void done.finally(() => deadline.signal.removeEventListener("abort", onAbort)).catch(() => {});
  }

  /** COMMIT (true) or ROLLBACK; after the deadline rolled it back, a commit throws the deadline's error. */
  async end(commit: boolean): Promise<void> {
    if (this.#pinnedTx) {
      this.#pinnedTx = false;
      await this.executeQuery(CompiledQuery.raw(commit ? "commit" : "rollback"));
      return;
    }
    const tx = this.#tx;
    if (!tx) throw new Error("no transaction to end");
    this.#tx = undefined;
    if (tx.abandoned === undefined) tx.finish(commit);
    try {
      await tx.done;
    } catch (error) {
      if (error !== ROLLBACK && commit) throw error;
    }
    if (commit && tx.abandoned !== undefined) throw tx.abandoned;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const tx = this.#tx;
    if (tx?.abandoned !== undefined) throw tx.abandoned;
    const target = tx?.sql ?? this.#reserved ?? this.#pool;
    const params = toParameters(query.parameters);
    // On the pool only: a transaction's or the pinned session's statement is not sent again (its session is gone with it).
    const result = target === this.#pool ? await resentOnce(() => this.#run(target, query.sql, params)) : await this.#run(target, query.sql, params);
    const command = result.command;
    return {
      numAffectedRows: command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE" ? BigInt(result.count) : undefined,
      rows: Array.from(result) as R[],
    };
  }

  /** Statements without parameters (BEGIN, DDL, raw SQL) run unprepared: DDL cannot be prepared with
   * parameters anyway, and preparing one-off text would fill the per-connection cache. */
  async #run(target: Sql | ReservedSql | TransactionSql, text: string, params: any[]): Promise<Rows> {
    const pending = target.unsafe(text, params, { prepare: params.length > 0 });
    return this.#deadline ? await waitOn(`the statement "${text.slice(0, 80)}"`, pending, () => void pending.cancel()) : await pending;
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
    const target = this.#tx?.sql ?? this.#reserved ?? this.#pool;
    const cursor = target.unsafe(query.sql, toParameters(query.parameters), { prepare: true }).cursor(chunkSize);
    for await (const rows of cursor) yield { rows: rows as unknown as R[] };
  }
}

// postgres.js sends a bigint as int8, which overflows numeric(78) amounts above 2^63: send its
// decimal text and let Postgres take the column's type.
function toParameters(parameters: readonly unknown[]): any[] {
  return parameters.map((value) => (typeof value === "bigint" ? value.toString() : value));
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
