// Charted tokens (those with a USDG market): their price, pool reserves, 24-hour volume and the
// price a day ago.
import { sql, type Kysely } from "kysely";
import type { Projections } from "../projections.js";
import { x18 } from "./columns.js";
import { DAY_S } from "../../../domain/price.js";

export type TokenRow = {
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  category: string;
  verified: boolean;
  pool: string | null;
  quoteIs0: boolean | null;
  priceX18: bigint;
  reserveUsdg: bigint;
  reserveToken: bigint;
  swaps: number;
  updatedAt: number;
};

export type TokenMarketRow = TokenRow & {
  /** Sum of the USDG volume of the hourly candles starting in the 24 hours before `now` (base units). */
  volume24hUsdg: bigint;
  /** Close of the last hourly candle starting at or before now - 24 h, or null without one. */
  price24hAgoX18: bigint | null;
};

function tokenColumns(reads: Kysely<Projections>) {
  return reads
    .selectFrom("token")
    .leftJoin("market", "market.pool", "token.pool")
    .select([
      "token.address",
      "token.symbol",
      "token.name",
      "token.decimals",
      "token.category",
      "token.verified",
      "token.pool",
      "market.quoteIs0",
      x18("token", "price_x_18").as("priceX18"),
      "token.reserveUsdg",
      "token.reserveToken",
      "token.swaps",
      "token.updatedAt",
    ]);
}

/** Every charted token with its 24-hour volume and the price 24 hours before `now` (unix seconds). */
export async function readTokenMarkets(reads: Kysely<Projections>, now: number): Promise<TokenMarketRow[]> {
  const since = now - DAY_S;
  const rows = await tokenColumns(reads)
    .select((eb) => [
      eb
        .selectFrom("candle1h")
        .select(sql<bigint>`coalesce(sum(${sql.ref("candle1h.volume_usdg")}), 0)`.as("v"))
        .whereRef("candle1h.token", "=", "token.address")
        .where("candle1h.start", ">=", since)
        .where("candle1h.start", "<=", now)
        .as("volume24hUsdg"),
      eb
        .selectFrom("candle1h")
        .select("candle1h.close")
        .whereRef("candle1h.token", "=", "token.address")
        .where("candle1h.start", "<=", since)
        .orderBy("candle1h.start", "desc")
        .limit(1)
        .as("price24hAgoX18"),
    ])
    .where("token.pool", "is not", null)
    .execute();
  return rows.map((r) => ({ ...(r as TokenRow), volume24hUsdg: BigInt(r.volume24hUsdg ?? 0n), price24hAgoX18: r.price24hAgoX18 ?? null }));
}

/** The charted tokens among `addresses` (any case), by lowercase address. */
export async function readTokensByAddress(reads: Kysely<Projections>, addresses: string[]): Promise<Map<string, TokenRow>> {
  if (addresses.length === 0) return new Map();
  const rows = await tokenColumns(reads)
    .where("token.address", "in", addresses.map((a) => a.toLowerCase()) as `0x${string}`[])
    .execute();
  return new Map(rows.map((r) => [r.address.toLowerCase(), r as TokenRow]));
}

/** Every indexed token's symbol and name (what a new basket's name and symbol may not copy). */
export async function readTokenNames(reads: Kysely<Projections>): Promise<{ symbol: string; name: string }[]> {
  return reads.selectFrom("token").select(["symbol", "name"]).execute();
}

/**
 * A charted token (PoolCreated wrote its symbol and decimals) by address (any case), or by a verified
 * token's symbol (any case): an unverified token's symbol is its own.
 */
export async function readChartedToken(
  reads: Kysely<Projections>,
  input: string,
  byAddress: boolean,
): Promise<{ address: string; symbol: string; decimals: number } | undefined> {
  const query = reads.selectFrom("token").select(["address", "symbol", "decimals"]).where("pool", "is not", null);
  return (
    byAddress
      ? query.where("address", "=", input.toLowerCase() as `0x${string}`)
      : query.where("verified", "=", true).where((eb) => eb(eb.fn("lower", ["symbol"]), "=", input.toLowerCase()))
  ).executeTakeFirst();
}
