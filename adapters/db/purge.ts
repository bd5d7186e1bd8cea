// Retention's statements: each deletes one batch (at most `limit` rows) of a table's expired rows and
// answers how many it deleted. The purge processor (workers/processors/purge.ts) drains them.
import type { Kysely } from "kysely";
import type { Database } from "./api-schema.js";

type Db = Kysely<Database>;
const count = (r: { numDeletedRows: bigint }) => Number(r.numDeletedRows);

/** Sign-in challenges expired at `now`. */
export const deleteExpiredChallenges = async (db: Db, now: Date, limit: number) =>
  count(
    await db
      .deleteFrom("session_challenge")
      .where("id", "in", (eb) => eb.selectFrom("session_challenge").select("id").where("expires_at", "<=", now).limit(limit))
      .executeTakeFirstOrThrow(),
  );

/** Sessions expired at `now`. */
export const deleteExpiredSessions = async (db: Db, now: Date, limit: number) =>
  count(
    await db
      .deleteFrom("session")
      .where("token_hash", "in", (eb) => eb.selectFrom("session").select("token_hash").where("expires_at", "<=", now).limit(limit))
      .executeTakeFirstOrThrow(),
  );

/** Sign requests expired at `cutoff`; filings keep their row (the foreign key sets their sign_request_id to null). */
export const deleteSignRequestsExpiredBy = async (db: Db, cutoff: Date, limit: number) =>
  count(
    await db
      .deleteFrom("sign_request")
      .where("id", "in", (eb) => eb.selectFrom("sign_request").select("id").where("expires_at", "<=", cutoff).limit(limit))
      .executeTakeFirstOrThrow(),
  );

/** Filings created by `cutoff` never matched (no transaction on their report_action, which goes with them by cascade). */
export const deleteUnmatchedFilingsBy = async (db: Db, cutoff: Date, limit: number) =>
  count(
    await db
      .deleteFrom("filing")
      .where("id", "in", (eb) =>
        eb
          .selectFrom("filing")
          .leftJoin("report_action", "report_action.filing_id", "filing.id")
          .select("filing.id")
          .where("filing.created_at", "<=", cutoff)
          .where("report_action.tx_hash", "is", null)
          .limit(limit),
      )
      .executeTakeFirstOrThrow(),
  );

/** Strategy-finder run logs created by `cutoff`. */
export const deleteStrategyRunsBy = async (db: Db, cutoff: Date, limit: number) =>
  count(
    await db
      .deleteFrom("strategy_run")
      .where("id", "in", (eb) => eb.selectFrom("strategy_run").select("id").where("created_at", "<=", cutoff).limit(limit))
      .executeTakeFirstOrThrow(),
  );
