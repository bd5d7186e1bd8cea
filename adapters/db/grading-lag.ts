// What the grading lag reads (usecases/report-card/grading-lag.ts): on the API's schema, the filings a
// mined call can still match and the transactions already credited; on the projections, the owners'
// successful mined calls since a time.
import type { Kysely } from "kysely";
import type { Database } from "./api-schema.js";
import type { Projections } from "./projections.js";

/** Matchable filings that can match a call (a call key): owner, key and when made. Never matched nor settled yet. */
export const matchableFilingKeys = (db: Kysely<Database>) =>
  db.selectFrom("filing").select(["owner", "call_key", "created_at"]).where("matchable", "=", true).where("call_key", "is not", null).execute();

/** The owners' report actions executed at `since` or later: their transaction and figures (every transaction matched). */
export const creditedActionsOf = (db: Kysely<Database>, owners: string[], since: Date) =>
  db
    .selectFrom("report_action")
    .select(["tx_hash", "figures"])
    .where("owner", "in", owners)
    .where("tx_hash", "is not", null)
    .where("executed_at", ">=", since)
    .execute();

/** The owners' successful mined calls at `since` (unix seconds) or later. */
export const ownersCallsSince = (reads: Kysely<Projections>, owners: string[], since: number) =>
  reads
    .selectFrom("executedCall")
    .select(["txHash", "from", "to", "input", "timestamp"])
    .where("from", "in", owners as `0x${string}`[])
    .where("success", "=", true)
    .where("timestamp", ">=", since)
    .execute();
