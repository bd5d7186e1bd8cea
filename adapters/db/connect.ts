// Connecting to the API's schema, and migrating it.
//
// Driver: kysely builds the SQL, postgres.js runs it as prepared statements on a pool it pipelines
// (adapters/db/postgres-js-dialect.ts). Measured here, in-process, 50 concurrent point-selects, pool of
// 10: ~17k/s against ~8k/s for kysely over pg and ~5-6k/s for kysely-postgres-js (which reserves a
// connection and sends unprepared SQL for every query); DESIGN's HTTP figures rank them the same.
import { Kysely, Migrator, sql, type MigrationResultSet } from "kysely";
import postgres, { type Sql } from "postgres";
import { assertSchemaName, DEFAULT_API_SCHEMA, type Database } from "./api-schema.js";
import { migrationProvider } from "./migrations/index.js";
import { PostgresJsAdapter, PostgresJsDialect } from "./postgres-js-dialect.js";

export type CreateDbParameters = {
  url: string;
  /** An existing pool to share (e.g. with a Kysely over the indexer's views); then `destroy()` leaves it open. */
  sql?: Sql;
  /** The API's schema (default agent_api); every table reference is qualified with it. */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
  /** Seconds to wait for a connection before failing (default 5, so a dead Postgres fails fast). */
  connectTimeout?: number;
  /** application_name shown in pg_stat_activity. */
  applicationName?: string;
};

/**
 * Seconds a pool's connection waits before connecting again after it closed on an error. postgres.js's
 * default, 3^n/100 up to 20 s, counts n over the whole pool and every failed attempt: a 3-second Postgres
 * restart under load took it to 20 s, so the pool served nothing for up to 20 s after Postgres was back
 * (measured: test/adapters/db/reconnect.test.ts). Capped at 1 s: a pool of 30 then tries 30 times a
 * second at most while Postgres is down.
 */
export const reconnectBackoff = (retries: number): number => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 1);

/** A postgres.js pool with the service's defaults. */
export function createPostgres({ url, max = 10, connectTimeout = 5, applicationName = "agent-api" }: Omit<CreateDbParameters, "schema" | "sql">): Sql {
  return postgres(url, {
    max,
    connect_timeout: connectTimeout,
    backoff: reconnectBackoff,
    idle_timeout: 60,
    onnotice: () => {}, // "already exists, skipping" and friends
    connection: { application_name: applicationName },
  });
}

/** A Kysely over the API's schema. `db.destroy()` ends its pool (unless the pool was given). */
export function createDb(parameters: CreateDbParameters): Kysely<Database> {
  const schema = assertSchemaName(parameters.schema ?? DEFAULT_API_SCHEMA);
  const dialect = new PostgresJsDialect({ sql: parameters.sql ?? createPostgres(parameters), endOnDestroy: parameters.sql === undefined });
  return new Kysely<Database>({ dialect }).withSchema(schema);
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

/**
 * Creates the schema when missing and applies every pending migration. Idempotent, and safe when
 * several replicas start at once: kysely's migration lock is a session advisory lock, so the
 * migrator runs on pinned connections over the same pool.
 */
export async function migrateToLatest(db: Kysely<any>, schema: string = DEFAULT_API_SCHEMA): Promise<MigrationResultSet> {
  assertSchemaName(schema);
  const adapter = db.getExecutor().adapter;
  const ours = adapter instanceof PostgresJsAdapter && !adapter.pinned;
  // Any other dialect (pg, kysely-postgres-js) already gives one session per acquisition.
  const pinned = ours ? new Kysely<any>({ dialect: new PostgresJsDialect({ sql: adapter.sql, pinned: true, endOnDestroy: false }) }) : db.withoutPlugins();
  try {
    await createSchema(pinned, schema);
    const migrator = new Migrator({ db: pinned, provider: migrationProvider(schema), migrationTableSchema: schema });
    const result = await migrator.migrateToLatest();
    if (result.error) {
      const failed = result.results?.find((r) => r.status === "Error")?.migrationName ?? "(setup)";
      const reason = result.error instanceof Error ? result.error.message : String(result.error);
      throw new MigrationError(`migration ${failed} of schema ${schema} failed: ${reason}`, { cause: result.error });
    }
    return result;
  } finally {
    if (ours) await pinned.destroy();
  }
}

async function createSchema(db: Kysely<any>, schema: string): Promise<void> {
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  } catch (error) {
    // Two replicas creating it at the same moment: one sees a unique violation; the schema exists.
    if ((error as { code?: string }).code !== "23505") throw error;
  }
}

/** A round trip to Postgres (the readiness probe): resolves when it answers. */
export async function postgresPing(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
