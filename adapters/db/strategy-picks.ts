// The strategy finder's daily picks (strategy_pick), tied to the chain they were made on, and their
// paper record as the board job follows them for 7 days.
import type { ExpressionBuilder, Insertable, Kysely } from "kysely";
import type { Database } from "./api-schema.js";

type Db = Kysely<Database>;

/** The picks of `chain` (null: of no known chain), as scans are tied to theirs. */
const sameChain = (chain: string | null) => (eb: ExpressionBuilder<Database, "strategy_pick">) =>
  chain === null ? eb("chain", "is", null) : eb("chain", "=", chain);

export async function hasPicksOfDay(db: Db, day: string, chain: string | null): Promise<boolean> {
  const existing = await db.selectFrom("strategy_pick").select("id").where("day", "=", day).where(sameChain(chain)).executeTakeFirst();
  return existing !== undefined;
}

export async function insertPicks(db: Db, rows: Insertable<Database["strategy_pick"]>[]): Promise<void> {
  await db
    .insertInto("strategy_pick")
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The picks of `chain` not yet followed to their end. */
export const openPicksOf = (db: Db, chain: string | null) =>
  db.selectFrom("strategy_pick").selectAll().where("done", "=", false).where(sameChain(chain)).execute();

export async function updatePickPaper(db: Db, id: string, paper: Record<string, unknown>, done: boolean): Promise<void> {
  await db.updateTable("strategy_pick").set({ paper, done }).where("id", "=", id).execute();
}

/** Every pick with a paper record (of `chain` when given): its record and whether it is done. */
export async function picksWithPaper(db: Db, chain: string | undefined) {
  let q = db.selectFrom("strategy_pick").select(["paper", "done"]).where("paper", "is not", null);
  if (chain !== undefined) q = q.where(sameChain(chain.toLowerCase()));
  return q.execute();
}

/** The newest `limit` picks (of `chain` when given), by day then rank. */
export async function latestPicks(db: Db, chain: string | undefined, limit: number) {
  let q = db.selectFrom("strategy_pick").selectAll().orderBy("day", "desc").orderBy("rank", "asc").limit(limit);
  if (chain !== undefined) q = q.where(sameChain(chain.toLowerCase()));
  return q.execute();
}
