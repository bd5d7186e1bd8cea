// The grading pass's reads of the projections: mined calls (to match filings), the indexed chain time,
// the changes a transaction logged, queue requests and orders, and prices at a time.
import { sql, type Kysely } from "kysely";
import type { Projections } from "../projections.js";

type Reads = Kysely<Projections>;
type Hex = `0x${string}`;

/** Successful mined calls at `since` (unix seconds) or later (from `owner` when given), in chain order: block, transaction, call. */
export async function minedCallsSince(reads: Reads, since: number, owner: string | undefined) {
  let q = reads
    .selectFrom("executedCall")
    .select(["id", "txHash", "from", "to", "input", "blockNumber", "timestamp"])
    .where("success", "=", true)
    .where("timestamp", ">=", since)
    .orderBy("blockNumber")
    .orderBy("transactionIndex")
    .orderBy("callIndex");
  if (owner) q = q.where("from", "=", owner as Hex);
  return q.execute();
}

export type CallQuery = { from: string; to: string; input: string; fromBlock: bigint; fromTime: number; toTime: number };

/** Up to 50 successful calls from `from` to `to` with exactly `input`, at `fromBlock` or later, within the times, in chain order. */
export const minedCallsOf = (reads: Reads, q: CallQuery) =>
  reads
    .selectFrom("executedCall")
    .select(["id", "txHash", "blockNumber", "timestamp"])
    .where("from", "=", q.from as Hex)
    .where("to", "=", q.to.toLowerCase() as Hex)
    .where("input", "=", q.input.toLowerCase() as Hex)
    .where("success", "=", true)
    .where("blockNumber", ">=", q.fromBlock)
    .where("timestamp", ">=", q.fromTime)
    .where("timestamp", "<=", q.toTime)
    .orderBy("blockNumber")
    .orderBy("transactionIndex")
    .orderBy("callIndex")
    .limit(50)
    .execute();

/** The newest mined call's time (unix seconds; 0 when none): what a pass starting now covers. */
export async function newestCallTime(reads: Reads): Promise<number> {
  const row = await reads.selectFrom("executedCall").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst();
  return Number(row?.t ?? 0);
}

/** The oldest successful mined call's time after `after` (unix seconds), or null: one probe of the timestamp index. */
export async function oldestCallAfter(reads: Reads, after: number): Promise<number | null> {
  const row = await reads
    .selectFrom("executedCall")
    .select(sql<number | null>`min(timestamp)`.as("t"))
    .where("timestamp", ">", after)
    .where("success", "=", true)
    .executeTakeFirst();
  return row?.t == null ? null : Number(row.t);
}

/** The chain time the indexer has reached: the newest indexed trade or change. */
export async function indexedChainTime(reads: Reads): Promise<number> {
  const [swap, change] = await Promise.all([
    reads.selectFrom("poolSwap").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst(),
    reads.selectFrom("activity").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst(),
  ]);
  return Math.max(Number(swap?.t ?? 0), Number(change?.t ?? 0));
}

/** The changes the transactions logged for the owner. */
export const changesOf = (reads: Reads, owner: string, txs: string[]) =>
  reads
    .selectFrom("activity")
    .select(["kind", "subject", "contract", "data", "timestamp"])
    .where("owner", "=", owner as Hex)
    .where("txHash", "in", txs as Hex[])
    .execute();

/** The newest indexed change's position (null on an empty log). */
export async function newestChangePosition(reads: Reads): Promise<bigint | null> {
  const row = await reads.selectFrom("activity").select(sql<string | null>`max(position)`.as("p")).executeTakeFirst();
  return row?.p != null ? BigInt(row.p) : null;
}

/** The changes of these kinds logged after position `after` up to `upTo` (of `owner` when given), through the position index. */
export async function changesBetween(reads: Reads, p: { after: bigint; upTo: bigint; kinds: readonly string[]; owner: string | undefined }) {
  let q = reads
    .selectFrom("activity")
    .select(["kind", "subject", "contract", "data"])
    .where("position", ">", p.after)
    .where("position", "<=", p.upTo)
    .where("kind", "in", p.kinds as string[]);
  if (p.owner) q = q.where("owner", "=", p.owner as Hex);
  return q.execute();
}

/** A deposit or withdrawal request's state, when it changed, and its vault. */
export const queueRequestState = (reads: Reads, table: "depositRequest" | "withdrawalRequest", queue: string, id: bigint) =>
  reads
    .selectFrom(table)
    .select(["state", "updatedAt", "vault"])
    .where("queue", "=", queue as Hex)
    .where("id", "=", id)
    .executeTakeFirst();

export const ordersByIds = (reads: Reads, ids: bigint[]) =>
  reads.selectFrom("limitOrder").select(["id", "state", "filledIn", "filledOut"]).where("id", "in", ids).execute();

/** The time of the owner's last fill of these orders, if any. */
export async function lastFillOf(reads: Reads, owner: string, ids: bigint[]): Promise<number | null> {
  const fills = await reads
    .selectFrom("activity")
    .select(sql<number>`max(timestamp)`.as("t"))
    .where("owner", "=", owner as Hex)
    .where("kind", "=", "order.filled")
    .where("subject", "in", ids.map(String))
    .executeTakeFirst();
  return fills?.t != null ? Number(fills.t) : null;
}

/** The priceX18 of the last indexed pool trade of `token` at or before `at`. */
export async function lastTradePriceX18(reads: Reads, token: string, at: number): Promise<bigint | null> {
  const row = await reads
    .selectFrom("poolSwap")
    // Ponder names the column price_x_18, which CamelCasePlugin would ask for as price_x18.
    .select(sql<bigint>`price_x_18`.as("price"))
    .where("token", "=", token as Hex)
    .where("timestamp", "<=", at)
    .orderBy("timestamp", "desc")
    .orderBy("blockNumber", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? BigInt(row.price) : null;
}

/** A vault's last snapshot at or before `at`: total assets and supply. */
export const vaultSnapshotAt = (reads: Reads, vault: string, at: number) =>
  reads
    .selectFrom("vaultSnapshot")
    .select(["totalAssets", "totalSupply"])
    .where("vault", "=", vault as Hex)
    .where("timestamp", "<=", at)
    .orderBy("timestamp", "desc")
    .limit(1)
    .executeTakeFirst();

export const tokenDecimals = async (reads: Reads, token: string): Promise<number | undefined> =>
  (
    await reads
      .selectFrom("token")
      .select("decimals")
      .where("address", "=", token as Hex)
      .executeTakeFirst()
  )?.decimals;
