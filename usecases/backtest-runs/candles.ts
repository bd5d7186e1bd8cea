// Candle loading for backtests, planners and scans: 10-minute or hourly candles of a token from the
// projections, gaps filled with the previous close (domain/candles.ts), as a PriceSeries of
// floating-point prices (USDG per whole token).
import type { Kysely } from "kysely";
import { fillCandles, type CandleIn } from "../../domain/candles.js";
import { toSeries, type PriceSeries } from "../../domain/backtest/series.js";
import type { Projections } from "../../adapters/db/projections.js";
import { priceFloat } from "../../domain/format.js";
import { hasCandleBy, readCandleWindow, readVaultSnapshotWindow } from "../../adapters/db/reads/candles.js";

export type CandleStep = "10m" | "1h";
const STEP_SECONDS: Record<CandleStep, number> = { "10m": 600, "1h": 3600 };
const TABLE = { "10m": "candle10m", "1h": "candle1h" } as const;

const toNumber = priceFloat;

/** Candles of `token` with start in [from, to], filled; the last candle before `from` carries its close in. */
export async function loadSeries(reads: Kysely<Projections>, token: string, from: number, to: number, step: CandleStep): Promise<PriceSeries> {
  const size = STEP_SECONDS[step];
  const a = Math.floor(from / size) * size;
  const b = Math.floor(to / size) * size;
  const { rows, before } = await readCandleWindow(reads, TABLE[step], token, a, b);
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
  return hasCandleBy(reads, TABLE[step], token, last - size);
}

/** Share price (assets per share, unscaled) of vaults at each snapshot in [from, to], oldest first, plus the last one before. */
export async function readVaultSharePrices(
  reads: Kysely<Projections>,
  vault: string,
  from: number,
  to: number,
): Promise<{ timestamp: number; sharePrice: number }[]> {
  const { rows, before } = await readVaultSnapshotWindow(reads, vault, from, to);
  return [...(before ? [before] : []), ...rows]
    .filter((r) => r.totalSupply > 0n)
    .map((r) => ({ timestamp: r.timestamp, sharePrice: Number(r.totalAssets) / Number(r.totalSupply) }));
}
