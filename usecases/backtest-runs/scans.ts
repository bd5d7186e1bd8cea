// The repeatable scans: every charted token's grid plan and dip ladder at the live strategy fees, and
// the strategy finder's board (finder.ts). A worker of the `scan` queue runs them on a schedule and
// stores the latest result in scan_result; the routes answer from there (503 SCAN_PREPARING before
// the first one is stored).
import type { Kysely } from "kysely";
import type { Database } from "../../adapters/db/api-schema.js";
import { findScanResult, upsertScanResult } from "../../adapters/db/scan-results.js";
import type { Projections } from "../../adapters/db/projections.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { planGrid } from "../../domain/backtest/grid-plan.js";
import { ApiError } from "../../domain/errors.js";
import type { Logger } from "../../adapters/logger.js";
import { readChartedTokens } from "../../adapters/db/reads/candles.js";
import { loadSeries } from "./candles.js";
import { gridPlanAnswer, ladderPlanAnswer } from "./answers.js";
import { asOfBucket } from "./jobs.js";
import { DAY_S } from "../../domain/price.js";

const DAY = DAY_S;
export const GRID_SCAN_DAYS = 60;
export const GRID_SCAN_AMOUNT_USD = 200;
export const LADDER_SCAN_AMOUNT_USD = 500;
/** How often the scans run (ms). */
export const SCAN_EVERY_MS = 10 * 60_000;
/**
 * A failed scan is tried again after this long (the queue's backoff), and the worker starts the scans
 * within seconds of the index becoming ready: SCAN_PREPARING's Retry-After.
 */
export const SCAN_RETRY_SECONDS = 30;

export type ScanKind = "grid-tokens" | "ladder-tokens" | "strategy-finder";
export const scanKinds: ScanKind[] = ["grid-tokens", "ladder-tokens", "strategy-finder"];

export type LiveFees = { gridFeeBps: number; ladderFeeBps: number; hookFeeBps: number };

export type ScanContext = {
  db: Kysely<Database>;
  reads: Kysely<Projections>;
  deployments: Deployments;
  now: () => Date;
  /** The live strategy fees (read from the chain); throws when they cannot be read. */
  fees: () => Promise<LiveFees>;
  logger: Logger;
  /** The chain's identity (its genesis hash, adapters/db/index-readiness.ts), stored with each scan; absent: null. */
  chain?: () => Promise<string>;
  /** False while the index may not be read (views missing, backfill under way): a scan then fails, to be retried. */
  indexReady?: () => boolean;
};

/** The scan's chain, checked before it reads anything: a scan needs a readable index. */
export async function scanChain(ctx: ScanContext): Promise<string | null> {
  if (ctx.indexReady && !ctx.indexReady()) throw new Error("the index is not ready: the scan waits for it");
  return ctx.chain ? (await ctx.chain()).toLowerCase() : null;
}

export async function storeScan(db: Kysely<Database>, kind: ScanKind, key: string, payload: unknown, at: Date, chain: string | null = null) {
  await upsertScanResult(db, kind, key, payload, at, chain);
}

/**
 * The stored scan, or 503 SCAN_PREPARING (Retry-After: what the worker does) before the first one.
 * With `chain` (the running chain's genesis hash), a scan of another chain, or of none known, is not served.
 */
export async function readScan<T>(db: Kysely<Database>, kind: ScanKind, key = "latest", chain?: string): Promise<{ payload: T; at: Date }> {
  const row = await findScanResult(db, kind, key);
  if (!row || (chain !== undefined && row.chain !== chain.toLowerCase())) {
    const message = `The scan is being prepared on this chain: retry in ${SCAN_RETRY_SECONDS} s`;
    throw new ApiError("SCAN_PREPARING", message, undefined, { retryAfterSeconds: SCAN_RETRY_SECONDS });
  }
  return { payload: row.payload as T, at: row.created_at };
}

export type GridScanPayload = { asOf: string; feeBps: number; days: number; amountUsd: number; tokens: ReturnType<typeof gridPlanAnswer>[] };
export type LadderScanPayload = { asOf: string; feeBps: number; amountUsd: number; tokens: ReturnType<typeof ladderPlanAnswer>[] };

export async function runGridScan(ctx: ScanContext): Promise<GridScanPayload> {
  const chain = await scanChain(ctx);
  const now = ctx.now();
  const asOf = asOfBucket(now);
  const { gridFeeBps } = await ctx.fees();
  const out: GridScanPayload = {
    asOf: new Date(asOf * 1000).toISOString(),
    feeBps: gridFeeBps,
    days: GRID_SCAN_DAYS,
    amountUsd: GRID_SCAN_AMOUNT_USD,
    tokens: [],
  };
  for (const token of await readChartedTokens(ctx.reads)) {
    const series = await loadSeries(ctx.reads, token.address, asOf - GRID_SCAN_DAYS * DAY, asOf, "1h");
    if (series.length < 2) continue;
    out.tokens.push(
      gridPlanAnswer(token, planGrid(series, { amountUsd: GRID_SCAN_AMOUNT_USD, feeBps: gridFeeBps, now: asOf, days: GRID_SCAN_DAYS }), GRID_SCAN_DAYS),
    );
  }
  await storeScan(ctx.db, "grid-tokens", "latest", out, now, chain);
  return out;
}

export async function runLadderScan(ctx: ScanContext): Promise<LadderScanPayload> {
  const chain = await scanChain(ctx);
  const now = ctx.now();
  const asOf = asOfBucket(now);
  const { ladderFeeBps } = await ctx.fees();
  const out: LadderScanPayload = { asOf: new Date(asOf * 1000).toISOString(), feeBps: ladderFeeBps, amountUsd: LADDER_SCAN_AMOUNT_USD, tokens: [] };
  for (const token of await readChartedTokens(ctx.reads)) {
    const series = await loadSeries(ctx.reads, token.address, asOf - 37 * DAY, asOf, "1h");
    if (series.length < 2) continue;
    out.tokens.push(ladderPlanAnswer(token, series, asOf, LADDER_SCAN_AMOUNT_USD, ladderFeeBps));
  }
  await storeScan(ctx.db, "ladder-tokens", "latest", out, now, chain);
  return out;
}

const verdictRank = { good: 0, weak: 1, none: 2 } as const;

/** A scan's tokens for an answer: good first, then weak, then none; by average result within each. */
export function scanAnswer<E extends { verdict: "good" | "weak" | "none"; token: { category: string } }>(
  entries: E[],
  { limit, include, category, score }: { limit: number; include: "good" | "all"; category?: string; score: (e: E) => number | null },
): E[] {
  return entries
    .filter((e) => (include === "good" ? e.verdict === "good" : true) && (!category || category === "any" || e.token.category === category))
    .sort((a, b) => verdictRank[a.verdict] - verdictRank[b.verdict] || (score(b) ?? -Infinity) - (score(a) ?? -Infinity))
    .slice(0, limit);
}
