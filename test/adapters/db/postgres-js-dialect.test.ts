// The dialect's transactions on a real Postgres (adapters/db/postgres-js-dialect.ts): a transaction that
// waits for a pooled connection begins once one frees, even when the connection it waited on closes
// first. postgres.js 3.4.9's `reserve()` loses such a waiter (its pool hands the queued reserve to the
// closed connection's reconnect, which drops it: porsager/postgres#1195): the grading pass of issue 51
// awaited one for good. Two ways a connection closes under a waiter: the server ends it, or the pool's
// own idle timeout ends it while the waiter queues (the worker's pool: 60 s idle, a pass a minute).
import { type Kysely, sql } from "kysely";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../adapters/db/api-schema.js";
import { createDb, migrateToLatest } from "../../../adapters/db/connect.js";
import { createServer, connect, type Server } from "node:net";
import { DeadlineExceededError, runWithDeadline } from "../../../adapters/deadline.js";
import { createTestDatabase, type TestDatabase } from "../../api/support.js";

let database: TestDatabase;
let admin: postgres.Sql;
let proxy: Server;
/** How long the proxy keeps a client's socket after Postgres closed its side: the pool's connection is closing meanwhile. */
let goodbyeMs = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  admin = postgres(database.url, { max: 1, onnotice: () => {} });
  const target = new URL(database.url);
  proxy = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", () => setTimeout(drop, goodbyeMs));
    client.pipe(upstream);
    upstream.pipe(client, { end: false });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  await admin`create table t (id int primary key)`;
});

afterAll(async () => {
  await admin?.end();
  proxy?.close();
  await database?.drop();
});

/** `promise`, or a rejection after `ms`: a waiter that never settles fails the test instead of hanging it. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms))]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A one-connection pool through the proxy, idle connections closed after `idleSeconds`. */
function onePool(idleSeconds = 60, applicationName = "dialect-test"): Kysely<Database> {
  const url = new URL(database.url);
  url.host = `127.0.0.1:${(proxy.address() as { port: number }).port}`;
  const pool = postgres(url.toString(), { max: 1, idle_timeout: idleSeconds, onnotice: () => {}, connection: { application_name: applicationName } });
  // The pool given is not ended by destroy(): end it with the Kysely.
  const db = createDb({ url: url.toString(), sql: pool });
  return Object.assign(db, { destroy: async () => pool.end({ timeout: 1 }) });
}

describe("transactions of the postgres.js dialect", () => {
  it("a transaction queued for the pool's only connection begins after the server closes that connection", async () => {
    const db = onePool();
    try {
      let pid: number | undefined;
      let leave!: () => void;
      const held = new Promise<void>((r) => (leave = r));
      const first = db.transaction().execute(async (trx) => {
        pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
        await held;
      });
      first.catch(() => {});
      while (pid === undefined) await sleep(10);
      const second = db.transaction().execute(async (trx) => (await sql<{ one: number }>`select 1 as one`.execute(trx)).rows);
      await sleep(100); // queued behind the first
      await admin`select pg_terminate_backend(${pid})`;
      expect(await within(second, 5000)).toEqual([{ one: 1 }]);
      leave();
      await expect(first).rejects.toThrow();
    } finally {
      await db.destroy();
    }
  });

  it("a transaction that asks while the pool's idle connection is closing begins on a new one", async () => {
    const db = onePool(1);
    try {
      await sql`select 1`.execute(db);
      // The pool's goodbye to Postgres takes 400 ms through the proxy: its idle connection is closing, not closed.
      goodbyeMs = 400;
      await sleep(1150);
      const tx = db.transaction().execute(async (trx) => (await sql<{ one: number }>`select 1 as one`.execute(trx)).rows);
      expect(await within(tx, 5000)).toEqual([{ one: 1 }]);
    } finally {
      goodbyeMs = 0;
      await db.destroy();
    }
  });

  /** The pool's sessions as Postgres sees them: state and whether a transaction is open. */
  const sessions = (app: string) => admin<{ state: string; xact: boolean }[]>`
    select state, xact_start is not null as xact from pg_stat_activity where application_name = ${app}`;

  it("at a job's deadline, a statement waiting on a lock is cancelled, its transaction rolled back and its connection given back", async () => {
    const db = onePool(60, "deadline-lock");
    const lockPool = postgres(database.url, { max: 1, onnotice: () => {} });
    const locker = await lockPool.reserve();
    try {
      await locker`begin`;
      await locker`lock table t in access exclusive mode`;
      const started = Date.now();
      const job = runWithDeadline("test job", 800, () =>
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await sql`insert into t values (1)`.execute(trx); // waits for the lock
        }),
      );
      const error = await job.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeadlineExceededError);
      expect((error as Error).message).toMatch(/^test job passed its deadline of 0.8 s, waiting on the statement "insert into t values \(1\)" for 0\.\d s$/);
      expect(Date.now() - started).toBeLessThan(2000);
      // Rolled back and back in the pool: its one connection answers, idle, no transaction open.
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
      expect(await sessions("deadline-lock")).toEqual([{ state: "idle", xact: false }]);
      await locker`commit`;
      expect(await admin`select * from t`).toHaveLength(0);
    } finally {
      await locker`rollback`.catch(() => {});
      locker.release();
      await lockPool.end({ timeout: 1 });
      await db.destroy();
    }
  });

  it("at a job's deadline, a transaction whose code never goes on is rolled back and its connection given back", async () => {
    const db = onePool(60, "deadline-stuck");
    try {
      const error = await runWithDeadline("stuck job", 500, () =>
        db.transaction().execute(async (trx) => {
          await sql`insert into t values (2)`.execute(trx);
          await new Promise(() => {}); // never settles
        }),
      ).catch((e: unknown) => e);
      expect((error as Error).message).toBe("stuck job passed its deadline of 0.5 s, waiting on its own code (no connection or statement awaited)");
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
      expect(await sessions("deadline-stuck")).toEqual([{ state: "idle", xact: false }]);
      expect(await admin`select * from t where id = 2`).toHaveLength(0);
    } finally {
      await db.destroy();
    }
  });

  it("a job past its deadline waiting for a connection says so, and a transaction that begins later is rolled back at once", async () => {
    const db = onePool(60, "deadline-wait");
    let leave!: () => void;
    const held = new Promise<void>((r) => (leave = r));
    const holder = db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await held;
    });
    try {
      await new Promise((r) => setTimeout(r, 100));
      const error = await runWithDeadline("waiting job", 300, () =>
        db.transaction().execute(async (trx) => {
          await sql`insert into t values (3)`.execute(trx);
        }),
      ).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/^waiting job passed its deadline of 0.3 s, waiting on BEGIN \(a connection of the pool, 1 at most\)/);
      leave();
      await holder;
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
      expect(await admin`select * from t where id = 3`).toHaveLength(0);
    } finally {
      leave();
      await db.destroy();
    }
  });

  it("migrates on a pool of one connection: the migrator's transaction runs on its pinned session", async () => {
    const db = createDb({ url: database.url, schema: "pinned_one", max: 1 });
    try {
      const result = await within(migrateToLatest(db, "pinned_one"), 20_000);
      expect(result.error).toBeUndefined();
      expect(result.results?.length).toBeGreaterThan(0);
    } finally {
      await db.destroy();
    }
  });
});
