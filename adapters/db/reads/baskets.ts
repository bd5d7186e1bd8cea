// Baskets: the pools (tokens, weights, balances, cumulative swap fees), their supply changes from the
// activity log (mints and burns), and one owner's holding.
import { sql, type Kysely } from "kysely";
import type { Projections } from "../projections.js";
import { zeroAddress } from "viem";

export type BasketRow = Projections["basket"];

/** The pool address of the listed basket with `symbol` (any case), or undefined. */
export async function readListedBasketAddress(reads: Kysely<Projections>, symbol: string): Promise<string | undefined> {
  const row = await reads
    .selectFrom("basket")
    .select(["address"])
    .where("listed", "=", true)
    .where((eb) => eb(eb.fn("lower", ["symbol"]), "=", symbol.toLowerCase()))
    .executeTakeFirst();
  return row?.address;
}

/** Every basket, or only the listed (verified) ones, oldest first. */
export async function readBaskets(reads: Kysely<Projections>, { listedOnly = false } = {}): Promise<BasketRow[]> {
  let query = reads.selectFrom("basket").selectAll();
  if (listedOnly) query = query.where("listed", "=", true);
  return query.orderBy("createdAt").orderBy("address").execute();
}

/** One basket by its pool address (any case), or undefined. */
export async function readBasket(reads: Kysely<Projections>, pool: string): Promise<BasketRow | undefined> {
  return reads
    .selectFrom("basket")
    .selectAll()
    .where("address", "=", pool.toLowerCase() as `0x${string}`)
    .executeTakeFirst();
}

/** Listed baskets, counted. */
export async function countListedBaskets(reads: Kysely<Projections>): Promise<number> {
  const row = await reads.selectFrom("basket").select(sql<number>`count(*)::int`.as("n")).where("listed", "=", true).executeTakeFirst();
  return row?.n ?? 0;
}

/**
 * Mints (positive) and burns (negative) of the basket token after `after` (unix seconds), oldest
 * first: the activity log's basket.balance changes whose counterparty is the zero address.
 */
export async function readBasketSupplyChanges(reads: Kysely<Projections>, pool: string, after: number): Promise<{ timestamp: number; delta: bigint }[]> {
  const rows = await reads
    .selectFrom("activity")
    .select(["timestamp", sql<string>`${sql.ref("data")}->>'delta'`.as("delta")])
    .where("kind", "=", "basket.balance")
    .where(sql<string>`lower(${sql.ref("subject")})`, "=", pool.toLowerCase())
    .where(sql<string>`lower(${sql.ref("data")}->>'counterparty')`, "=", zeroAddress)
    .where("timestamp", ">", after)
    .orderBy("timestamp")
    .execute();
  return rows.map((r) => ({ timestamp: r.timestamp, delta: BigInt(r.delta) }));
}

/** An owner's basket tokens and when basket tokens first reached it (null when never). */
export async function readBasketHolding(reads: Kysely<Projections>, pool: string, owner: string): Promise<{ balance: bigint; firstInflowAt: number | null }> {
  const [balance, first] = await Promise.all([
    reads
      .selectFrom("basketBalance")
      .select("balance")
      .where("basket", "=", pool.toLowerCase() as `0x${string}`)
      .where("owner", "=", owner.toLowerCase() as `0x${string}`)
      .executeTakeFirst(),
    reads
      .selectFrom("activity")
      .select(sql<number | null>`min(${sql.ref("timestamp")})`.as("first"))
      .where("owner", "=", owner.toLowerCase() as `0x${string}`)
      .where("kind", "=", "basket.balance")
      .where(sql<string>`lower(${sql.ref("subject")})`, "=", pool.toLowerCase())
      .where(sql<string>`(${sql.ref("data")}->>'delta')::numeric`, ">", sql<string>`0`)
      .executeTakeFirst(),
  ]);
  return { balance: balance?.balance ?? 0n, firstInflowAt: first?.first ?? null };
}
