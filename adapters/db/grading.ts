// The grading pass's statements on the API's schema: filings (matchable, their call keys), report
// actions (stored per filing, the transactions already credited) and the settling of closed windows.
import { sql, type Kysely, type SqlBool } from "kysely";
import type { Database, FilingRow } from "./api-schema.js";

type Db = Kysely<Database>;

/** A filing with its report action's match (the rows a grading pass grades). */
export type PendingRow = FilingRow & {
  action_figures: Record<string, unknown> | null;
  action_executed_at: Date | null;
  action_tx: string | null;
  action_block: string | null;
};

/**
 * Matched filings whose report action is not final (graded, not-graded) (of `owner` when given), oldest first, and
 * only those that can have changed: due by `dueBy` (chain time) or waiting on one of `events` (wait keys).
 * Through the partial indexes on due_at and waits_on (migration 0011): never every waiting action.
 */
export async function readPendingActions(db: Db, p: { owner: string | undefined; dueBy: Date; events: string[] }): Promise<PendingRow[]> {
  let q = db
    .selectFrom("report_action")
    .innerJoin("filing", "filing.id", "report_action.filing_id")
    .selectAll("filing")
    .select([
      "report_action.figures as action_figures",
      "report_action.executed_at as action_executed_at",
      "report_action.tx_hash as action_tx",
      "report_action.executed_block as action_block",
    ])
    // The partial indexes' own predicate, written out: a generic plan (a statement run again and again on one
    // connection) can use a partial index only when the query's predicate is not a parameter.
    .where(sql<boolean>`report_action.tx_hash is not null and report_action.state not in ('graded', 'not-graded')`)
    .where((eb) =>
      eb.or([
        eb("report_action.due_at", "<=", p.dueBy),
        // `&&` as it stands, so the GIN index on waits_on serves it.
        ...(p.events.length > 0 ? [sql<SqlBool>`report_action.waits_on && cast(${p.events} as text[])`] : []),
      ]),
    )
    .orderBy("filing.created_at")
    .orderBy("filing.id");
  if (p.owner) q = q.where("report_action.owner", "=", p.owner);
  return (await q.execute()) as PendingRow[];
}

/** The newest block the last pass read the indexer's changes up to (null before the first pass). */
export async function readGradingMark(db: Db): Promise<bigint | null> {
  const row = await db.selectFrom("grading_mark").select("block").where("id", "=", "changes").executeTakeFirst();
  return row ? BigInt(row.block) : null;
}

export async function storeGradingMark(db: Db, block: bigint): Promise<void> {
  await db
    .insertInto("grading_mark")
    .values({ id: "changes", block: block.toString() })
    .onConflict((oc) => oc.column("id").doUpdateSet({ block: block.toString() }))
    .execute();
}

/** The last whole grading pass: when it started and the newest mined call's time (unix seconds) it covered. */
export const readGradingPass = (db: Db) => db.selectFrom("grading_pass").select(["started_at", "covered_to"]).where("id", "=", "whole").executeTakeFirst();

export async function storeGradingPass(db: Db, pass: { startedAt: Date; coveredTo: number }): Promise<void> {
  const values = { started_at: pass.startedAt, covered_to: pass.coveredTo };
  await db
    .insertInto("grading_pass")
    .values({ id: "whole", ...values })
    .onConflict((oc) => oc.column("id").doUpdateSet(values))
    .execute();
}

/**
 * Filings whose window closed (made more than 10 minutes before the indexed chain's time, or a week ago
 * on an idle chain) leave the matchable set: never signed. One statement; the card words them from
 * their age (usecases/report-card/card.ts), so nothing else is stored.
 * Answers how many.
 */
export async function settleClosedFilings(db: Db, p: { before: Date; staleBefore: Date; owner?: string }): Promise<number> {
  let q = db
    .updateTable("filing")
    .set({ matchable: false })
    .where("matchable", "=", true)
    .where((eb) => eb.or([eb("created_at", "<", p.before), eb("created_at", "<", p.staleBefore)]));
  if (p.owner) q = q.where("owner", "=", p.owner);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** When the oldest matchable filing (of `owner` when given) was made. */
export async function oldestMatchableAt(db: Db, owner: string | undefined): Promise<Date | undefined> {
  let q = db.selectFrom("filing").select("created_at").where("matchable", "=", true).orderBy("created_at").limit(1);
  if (owner) q = q.where("owner", "=", owner);
  return (await q.executeTakeFirst())?.created_at;
}

/** Matchable filings of these (owner, call_key) pairs made at `since` or later, oldest first. */
export async function matchableFilingsOf(db: Db, pairs: [string, string][], since: Date): Promise<FilingRow[]> {
  return (await db
    .selectFrom("filing")
    .selectAll()
    .where("matchable", "=", true)
    .where((eb) => eb.or(pairs.map(([o, k]) => eb.and([eb("owner", "=", o), eb("call_key", "=", k)]))))
    .where("created_at", ">=", since)
    .orderBy("created_at")
    .orderBy("id")
    .execute()) as FilingRow[];
}

/** These filings leave the matchable set (1000 per statement). */
export async function markUnmatchable(db: Db, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000)
    await db
      .updateTable("filing")
      .set({ matchable: false })
      .where("id", "in", ids.slice(i, i + 1000))
      .execute();
}

export type StoredAction = {
  state: string;
  reason: string | null;
  note: string;
  hit: boolean | null;
  figures: Record<string, unknown>;
  tx_hash?: string;
  executed_at?: Date;
  executed_block?: string;
  graded_at?: Date;
  on_public_card?: boolean;
  /** Waiting: when to read it again (null once final). */
  due_at?: Date | null;
  /** Waiting: the keys of what it waits on (null once final, or waiting only on time). */
  waits_on?: string[] | null;
};

/** The filing's report action, inserted or replaced (a final one is never due again). */
export async function storeReportAction(db: Db, filing: Pick<FilingRow, "id" | "owner">, s: StoredAction): Promise<void> {
  const values = { ...s, due_at: s.due_at ?? null, waits_on: s.waits_on ?? null, updated_at: new Date() };
  await db
    .insertInto("report_action")
    .values({ filing_id: filing.id, owner: filing.owner, ...values })
    .onConflict((oc) => oc.column("filing_id").doUpdateSet(values))
    .execute();
}

/**
 * Graded actions, inserted or replaced, in statements of 500: every column grading sets (a final one is
 * never due again; `graded_at` only on a graded one). Not `on_public_card`, which matching alone sets.
 */
export async function storeReportActions(db: Db, rows: { filing: Pick<FilingRow, "id" | "owner">; stored: StoredAction }[]): Promise<void> {
  const now = new Date();
  const values = rows.map(({ filing, stored: s }) => ({
    filing_id: filing.id,
    owner: filing.owner,
    state: s.state,
    reason: s.reason,
    note: s.note,
    hit: s.hit,
    figures: s.figures,
    tx_hash: s.tx_hash ?? null,
    executed_at: s.executed_at ?? null,
    executed_block: s.executed_block ?? null,
    graded_at: s.graded_at ?? null,
    due_at: s.due_at ?? null,
    waits_on: s.waits_on ?? null,
    updated_at: now,
  }));
  const columns = [
    "state",
    "reason",
    "note",
    "hit",
    "figures",
    "tx_hash",
    "executed_at",
    "executed_block",
    "graded_at",
    "due_at",
    "waits_on",
    "updated_at",
  ] as const;
  for (let i = 0; i < values.length; i += 500)
    await db
      .insertInto("report_action")
      .values(values.slice(i, i + 500))
      .onConflict((oc) => oc.column("filing_id").doUpdateSet((eb) => Object.fromEntries(columns.map((c) => [c, eb.ref(`excluded.${c}`)]))))
      .execute();
}

/** The owners' report actions executed at `since` or later: owner and figures (their transactions). */
export const creditedActionsSince = (db: Db, owners: string[], since: Date) =>
  db
    .selectFrom("report_action")
    .select(["owner", "figures"])
    .where("owner", "in", owners)
    .where("tx_hash", "is not", null)
    .where("executed_at", ">=", since)
    .execute();
