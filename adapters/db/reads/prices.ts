// Prices from the candle projections: 10-minute candles of a token, and the hourly closes at given
// times. Prices are priceX18 (USDG per whole token, 18 decimals); times are unix seconds.
import { sql, type Kysely } from "kysely";
import type { Projections } from "../projections.js";
import { DAY_S } from "../../../domain/price.js";

export type Candle = {
  /** Bucket start (unix seconds). */
  start: number;
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volumeUsdg: bigint;
  trades: number;
};

const lower = (a: string) => a.toLowerCase();

/** 10-minute candles of `token` with `from <= start <= to`, oldest first. */
export async function readCandles10m(reads: Kysely<Projections>, token: string, from: number, to: number): Promise<Candle[]> {
  return reads
    .selectFrom("candle10m")
    .select(["start", "open", "high", "low", "close", "volumeUsdg", "trades"])
    .where("token", "=", lower(token) as `0x${string}`)
    .where("start", ">=", from)
    .where("start", "<=", to)
    .orderBy("start", "asc")
    .execute();
}

/** The last 10-minute candle of `token` that starts before `before`, or undefined. */
export async function readCandle10mBefore(reads: Kysely<Projections>, token: string, before: number): Promise<Candle | undefined> {
  return reads
    .selectFrom("candle10m")
    .select(["start", "open", "high", "low", "close", "volumeUsdg", "trades"])
    .where("token", "=", lower(token) as `0x${string}`)
    .where("start", "<", before)
    .orderBy("start", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** Per token: the close of its last hourly candle starting at or before `at` (tokens with none are absent). */
export async function readClosesAt(reads: Kysely<Projections>, tokens: string[], at: number): Promise<Map<string, { start: number; close: bigint }>> {
  if (tokens.length === 0) return new Map();
  const rows = await reads
    .selectFrom("candle1h")
    .distinctOn("token")
    .select(["token", "start", "close"])
    .where("token", "in", tokens.map(lower) as `0x${string}`[])
    .where("start", "<=", at)
    .orderBy("token")
    .orderBy("start", "desc")
    .execute();
  return new Map(rows.map((r) => [lower(r.token), { start: r.start, close: r.close }]));
}

/** Per token: its first hourly candle (the oldest price known), as open and start. */
export async function readFirstPrices(reads: Kysely<Projections>, tokens: string[]): Promise<Map<string, { start: number; open: bigint }>> {
  if (tokens.length === 0) return new Map();
  const rows = await reads
    .selectFrom("candle1h")
    .distinctOn("token")
    .select(["token", "start", "open"])
    .where("token", "in", tokens.map(lower) as `0x${string}`[])
    .orderBy("token")
    .orderBy("start", "asc")
    .execute();
  return new Map(rows.map((r) => [lower(r.token), { start: r.start, open: r.open }]));
}

/**
 * Per token and UTC day (day = floor(unix seconds / 86400)) from `fromDay` to `toDay`: the close of the
 * day's last hourly candle. Days without a trade are absent (callers carry the last close forward).
 */
export async function readDailyCloses(
  reads: Kysely<Projections>,
  tokens: string[],
  fromDay: number,
  toDay: number,
): Promise<{ token: string; day: number; close: bigint }[]> {
  if (tokens.length === 0) return [];
  const day = sql<number>`(${sql.ref("start")} / ${sql.lit(DAY_S)})`;
  const rows = await reads
    .selectFrom("candle1h")
    .select(["token", day.as("day"), "close"])
    .distinctOn(["token", day])
    .where("token", "in", tokens.map(lower) as `0x${string}`[])
    .where("start", ">=", fromDay * DAY_S)
    .where("start", "<", (toDay + 1) * DAY_S)
    .orderBy("token")
    .orderBy(day)
    .orderBy("start", "desc")
    .execute();
  return rows.map((r) => ({ token: lower(r.token), day: Number(r.day), close: r.close }));
}
