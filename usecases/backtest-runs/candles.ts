// Candle loading for backtests, planners and scans: 10-minute or hourly candles of a token from the
// projections, gaps filled with the previous close (domain/candles.ts), as a PriceSeries of
// floating-point prices (USDG per whole token).
import type { Kysely } from "kysely";
import { fillCandles, type CandleIn } from "../../domain/candles.js";
import { toSeries, type PriceSeries } from "../../domain/backtest/series.js";
import type { Projections } from "../../adapters/db/projections.js";
import { priceUsd } from "../../domain/format.js";

export type CandleStep = "10m" | "1h";
const STEP_SECONDS: Record<CandleStep, number> = { "10m": 600, "1h": 3600 };
const TABLE = { "10m": "candle10m", "1h": "candle1h" } as const;

const toNumber = priceUsd;
const columns = ["start", "open", "high", "low", "close", "volumeUsdg", "trades"] as const;

/** Candles of `token` with start in [from, to], filled; the last candle before `from` carries its close in. */
export async function loadSeries(reads: Kysely<Projections>, token: string, from: number, to: number, step: CandleStep): Promise<PriceSeries> {
  const size = STEP_SECONDS[step];
  const table = TABLE[step];
  const t = token.toLowerCase() as `0x${string}`;
  const a = Math.floor(from / size) * size;
  const b = Math.floor(to / size) * size;
  const [rows, before] = await Promise.all([
    reads
      .selectFrom(table)
      .select([...columns])
      .where("token", "=", t)
      .where("start", ">=", a)
      .where("start", "<=", b)
      .orderBy("start", "asc")
      .execute(),
    reads
      .selectFrom(table)
      .select([...columns])
      .where("token", "=", t)
      .where("start", "<", a)
      .orderBy("start", "desc")
      .limit(1)
      .executeTakeFirst(),
  ]);
  const filled = fillCandles(rows as CandleIn[], { from: a, to: b, step: size, carryIn: before as CandleIn | undefined });
  return toSeries(filled.map((c) => ({ start: c.start, open: toNumber(c.open), high: toNumber(c.high), low: toNumber(c.low), close: toNumber(c.close) })));
}

/**
 * Whether loadSeries over the same window answers at least two candles: some candle (in the window, or
 * the one carried in before it) starts a step or more before the window's last start.
 */
export async function hasSeries(reads: Kysely<Projections>, token: string, from: number, to: number, step: CandleStep): Promise<boolean> {
  const size = STEP_SECONDS[step];
  const last = Math.floor(to / size) * size;
  if (Math.floor(from / size) * size > last - size) return false;
  const row = await reads
    .selectFrom(TABLE[step])
    .select("start")
    .where("token", "=", token.toLowerCase() as `0x${string}`)
    .where("start", "<=", last - size)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export type ChartedToken = { address: string; symbol: string; category: string; verified: boolean };

/** Tokens with a USDG market (the charted ones), by address. */
export async function readChartedTokens(reads: Kysely<Projections>): Promise<ChartedToken[]> {
  const rows = await reads.selectFrom("token").select(["address", "symbol", "category", "verified"]).where("pool", "is not", null).orderBy("address").execute();
  return rows.map((r) => ({ address: r.address, symbol: r.symbol, category: r.category, verified: r.verified }));
}

export async function readChartedToken(reads: Kysely<Projections>, token: string): Promise<ChartedToken | undefined> {
  const r = await reads
    .selectFrom("token")
    .select(["address", "symbol", "category", "verified"])
    .where("address", "=", token.toLowerCase() as `0x${string}`)
    .where("pool", "is not", null)
    .executeTakeFirst();
  return r && { address: r.address, symbol: r.symbol, category: r.category, verified: r.verified };
}

/** Share price (assets per share, unscaled) of vaults at each snapshot in [from, to], oldest first, plus the last one before. */
export async function readVaultSharePrices(
  reads: Kysely<Projections>,
  vault: string,
  from: number,
  to: number,
): Promise<{ timestamp: number; sharePrice: number }[]> {
  const v = vault.toLowerCase() as `0x${string}`;
  const [rows, before] = await Promise.all([
    reads
      .selectFrom("vaultSnapshot")
      .select(["timestamp", "totalAssets", "totalSupply"])
      .where("vault", "=", v)
      .where("timestamp", ">=", from)
      .where("timestamp", "<=", to)
      .orderBy("timestamp", "asc")
      .execute(),
    reads
      .selectFrom("vaultSnapshot")
      .select(["timestamp", "totalAssets", "totalSupply"])
      .where("vault", "=", v)
      .where("timestamp", "<", from)
      .orderBy("timestamp", "desc")
      .limit(1)
      .executeTakeFirst(),
  ]);
  return [...(before ? [before] : []), ...rows]
    .filter((r) => r.totalSupply > 0n)
    .map((r) => ({ timestamp: r.timestamp, sharePrice: Number(r.totalAssets) / Number(r.totalSupply) }));
}
