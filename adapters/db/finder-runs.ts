// The strategy finder's run log (strategy_run): every on-demand run, the per-client count of a day's
// runs, and the runs made with one wallet's owner session.
import { sql, type Insertable, type Kysely } from "kysely";
import type { Database } from "./api-schema.js";

type Db = Kysely<Database>;

export async function insertFinderRun(db: Db, row: Insertable<Database["strategy_run"]>): Promise<void> {
  await db.insertInto("strategy_run").values(row).execute();
}

/** The client's runs created after `since`, counted up to `limit`, and the oldest one's creation time. */
export async function countRunsSince(db: Db, client: string, since: Date, limit: number): Promise<{ n: string; first: unknown }> {
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom("strategy_run")
        .select("created_at")
        .where("client", "=", client)
        .where("created_at", ">", since)
        .orderBy("created_at")
        .limit(limit)
        .as("recent"),
    )
    .select((eb) => [eb.fn.countAll<string>().as("n"), eb.fn.min("created_at").as("first")])
    .executeTakeFirstOrThrow();
}

/** How many runs an identity made, and when its last one was. */
export const runsOfIdentity = (db: Db, kind: string, value: string) =>
  db
    .selectFrom("strategy_run")
    .select([sql<string>`count(*)`.as("n"), sql<Date | null>`max(created_at)`.as("last")])
    .where("identity_kind", "=", kind)
    .where("identity_value", "=", value.toLowerCase())
    .executeTakeFirst();
