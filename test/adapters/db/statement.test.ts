// The batched read statements' fallback (adapters/db/reads/statement.ts): a statement cancelled (57014) is
// answered by its fallback, and a fallback cancelled once (a cancel meant for the statement before it, landing
// late on the same connection) is tried once more, never more. Through a Kysely whose driver answers each
// statement text as the test scripts it: a cancel that lands on the next statement cannot be timed on demand
// against a real Postgres.
import { type DatabaseConnection, type Driver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type QueryResult } from "kysely";
import { describe, expect, it } from "vitest";
import type { Projections } from "../../../adapters/db/projections.js";
import { runBatchedWith, type StatementText } from "../../../adapters/db/reads/statement.js";

const cancelled = () => Object.assign(new Error("canceling statement due to user request"), { code: "57014" });

/** A Kysely whose every statement is answered by `answer(sql)`; `calls` counts them by text. */
function scripted(answer: (sql: string, nth: number) => unknown[]) {
  const calls = new Map<string, number>();
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: { sql: string }): Promise<QueryResult<R>> {
      const nth = (calls.get(query.sql) ?? 0) + 1;
      calls.set(query.sql, nth);
      return { rows: answer(query.sql, nth) as R[] };
    },
    // biome-ignore lint/correctness/useYield: no statement here streams
    async *streamQuery() {
      throw new Error("not streamed");
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => {},
    commitTransaction: async () => {},
    rollbackTransaction: async () => {},
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  const reads = new Kysely<Projections>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { reads, calls };
}

const VERSIONED: StatementText = () => "select 'versioned'";
const FALLBACK: StatementText = () => "select 'fallback'";
const value = { take: () => "copy", param: () => null, fallback: { statement: FALLBACK, afterMs: 2_000 } };

describe("a batched statement's fallback", () => {
  it("answers a cancelled statement by its fallback, tried once more when the fallback is cancelled too", async () => {
    const { reads, calls } = scripted((sql, nth) => {
      if (sql === VERSIONED(String)) throw cancelled();
      if (nth === 1) throw cancelled();
      return [{ i: 0, from: "fallback" }];
    });
    const { row, taken } = await runBatchedWith<{ from: string }, string>(reads, VERSIONED, { owner: "0xa" }, value);
    expect(row).toEqual({ i: 0, from: "fallback" });
    expect(taken).toBe("copy");
    expect(calls.get(FALLBACK(String))).toBe(2);
  });

  it("fails with the cancel when the fallback is cancelled twice (no endless retries)", async () => {
    const { reads, calls } = scripted(() => {
      throw cancelled();
    });
    await expect(runBatchedWith(reads, VERSIONED, { owner: "0xa" }, value)).rejects.toMatchObject({ code: "57014" });
    expect(calls.get(VERSIONED(String))).toBe(1);
    expect(calls.get(FALLBACK(String))).toBe(2);
  });

  it("throws any other error of the statement without running the fallback", async () => {
    const { reads, calls } = scripted((sql) => {
      if (sql === VERSIONED(String)) throw Object.assign(new Error("relation does not exist"), { code: "42P01" });
      return [{ i: 0 }];
    });
    await expect(runBatchedWith(reads, VERSIONED, { owner: "0xa" }, value)).rejects.toMatchObject({ code: "42P01" });
    expect(calls.get(FALLBACK(String))).toBeUndefined();
  });
});
