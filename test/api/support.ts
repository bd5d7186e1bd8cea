// Test fixtures of the API: a database of its own per test file (created through an admin
// connection, dropped with FORCE afterwards), a Redis key prefix of its own (deleted afterwards),
// a clock the test moves, a readiness flag, and a logger that keeps its lines.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely";
import { afterAll, beforeAll } from "vitest";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Projections } from "../../adapters/db/projections.js";
import postgres from "postgres";
import { createApp, type CreateAppOptions } from "../../api/app.js";
import type { AppDeps } from "../../api/deps.js";
import { createRedis, waitForRedis } from "../../adapters/redis.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createDb, migrateToLatest } from "../../adapters/db/connect.js";
import { createLogger, type Logger } from "../../adapters/logger.js";

export const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** Nothing listens here: a stopped Redis / Postgres. */
export const DEAD_REDIS_URL = "redis://127.0.0.1:6390";
export const DEAD_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5499/none";

/** A one-connection admin session on the `postgres` database. */
async function withAdmin<T>(run: (admin: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}

export type TestDatabase = { name: string; url: string; drop(): Promise<void> };

/** CREATE DATABASE agent_test_<random>; `drop()` removes it even with connections left open. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `agent_test_${randomBytes(6).toString("hex")}`;
  await withAdmin((admin) => admin.unsafe(`create database "${name}"`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      await withAdmin((admin) => admin.unsafe(`drop database if exists "${name}" with (force)`));
    },
  };
}

export function randomPrefix(): string {
  return `agent_test_${randomBytes(6).toString("hex")}`;
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== "0");
}

export async function connectRedis(url = REDIS_URL): Promise<Redis> {
  const redis = createRedis({ url });
  await waitForRedis(redis);
  return redis;
}

export type LogLine = Record<string, unknown> & { level: string; msg?: string };

export function capturingLogger(): { logger: Logger; lines: LogLine[]; text(): string } {
  const raw: string[] = [];
  const logger = createLogger({ level: "debug", write: (line) => raw.push(line) });
  return {
    logger,
    get lines() {
      return raw.map((line) => JSON.parse(line) as LogLine);
    },
    text: () => raw.join("\n"),
  };
}

export type Clock = { now: () => Date; set(date: Date): void; advance(ms: number): void };

export function testClock(start = new Date("2025-06-01T12:00:00.000Z")): Clock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (date) => (current = date.getTime()),
    advance: (ms) => (current += ms),
  };
}

/** A migrated Kysely over a fresh schema of `database`. */
export async function migratedDb(database: TestDatabase, schema = "agent_api"): Promise<Kysely<Database>> {
  const db = createDb({ url: database.url, schema, max: 4 });
  await migrateToLatest(db, schema);
  return db;
}

export type ApiFixture = { database: TestDatabase; db: Kysely<Database>; redis: Redis; prefix: string };

/**
 * A migrated database of its own, a Redis connection and a key prefix for the file (or the describe
 * block it is called in): made in beforeAll; the prefix's keys, the connections and the database are
 * removed in afterAll. Read its fields inside tests and hooks, not at collection time.
 */
export function useApiFixture(): ApiFixture {
  const fixture = { prefix: randomPrefix() } as ApiFixture;
  beforeAll(async () => {
    fixture.database = await createTestDatabase();
    fixture.db = await migratedDb(fixture.database);
    fixture.redis = await connectRedis();
  });
  afterAll(async () => {
    await deleteKeys(fixture.redis, fixture.prefix);
    await Promise.allSettled([fixture.db?.destroy(), fixture.redis?.quit()]);
    await fixture.database?.drop();
  });
  return fixture;
}

export type TestAppParameters = Partial<AppDeps> & Pick<AppDeps, "db" | "redis"> & { options?: CreateAppOptions };

/** Projections for apps whose routes never read them: compiles queries, runs none. */
export function noProjections(): Kysely<Projections> {
  return new Kysely<Projections>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

export const noDeployments: Deployments = { chainId: 4663, startBlock: 0, contracts: {}, tokens: [], vaults: [], baskets: [] };

/** createApp with test defaults: a capturing logger, a test clock, a ready indexer, a high limit. */
export function testApp(p: TestAppParameters) {
  const log = capturingLogger();
  const clock = testClock();
  let ready = true;
  const deps: AppDeps = {
    logger: log.logger,
    now: clock.now,
    indexerReady: () => ready,
    baseUrl: "http://agent.test",
    reads: noProjections(),
    deployments: noDeployments,
    // One in-process client prepares hundreds of bundles in a file; the bound is shown through real processes (attack.test.ts).
    signRequestsPerClient: 100_000,
    ...p,
    rateLimit: { points: 10_000, duration: 60, keyPrefix: `${randomPrefix()}:rl`, trustProxyHops: 1, ...p.rateLimit },
  };
  const app = createApp(deps, p.options);
  return { app, deps, log, clock, setIndexerReady: (value: boolean) => (ready = value) };
}

/** JSON body of a response. */
export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
