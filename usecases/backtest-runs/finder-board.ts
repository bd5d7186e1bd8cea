// The strategy finder's board job (I/O side): every token's and vault's results over 1-30 day windows,
// stored in scan_result; the day's picks stored and followed on paper for 7 days.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { getAddress } from "viem";
import type { Database } from "../../adapters/db/api-schema.js";
import { hasPicksOfDay, insertPicks, openPicksOf, picksWithPaper, updatePickPaper } from "../../adapters/db/strategy-picks.js";
import { dipLadderLines, dipLadderRecord, runDipLadder } from "../../domain/backtest/dip-ladder.js";
import { iso, pct, priceString, usd } from "../../domain/backtest/format.js";
import { backtestGrid } from "../../domain/backtest/grid.js";
import { planGrid } from "../../domain/backtest/grid-plan.js";
import { seriesBetween } from "../../domain/backtest/series.js";
import {
  BOARD_BUDGET_USD,
  MAX_PERIOD_DAYS,
  rankBoard,
  tokenPeriodResults,
  vaultPeriodResults,
  type BoardEntry,
  type PeriodResult,
} from "../../domain/strategy-finder/board.js";
import { readChartedTokens } from "../../adapters/db/reads/candles.js";
import { loadSeries, readVaultSharePrices } from "./candles.js";
import { asOfBucket } from "./jobs.js";
import { dipPrepareBody, tokenRef } from "./answers.js";
import { scanChain, storeScan, type ScanContext } from "./scans.js";
import { DAY_S } from "../../domain/price.js";

const DAY = DAY_S;
/** History loaded per token: the longest window and the window before it (grid lines are picked there). */
const BOARD_HISTORY_DAYS = 2 * MAX_PERIOD_DAYS;
export const PAPER_DAYS = 7;
/** Picks stored per day. */
const PICKS_PER_DAY = 6;
/** Windows shown as chips on a token's page. */
export const CHIP_PERIODS = [1, 7, 14, 30];

export type Subject =
  | { kind: "token"; token: ReturnType<typeof tokenRef> }
  | { kind: "vault"; vault: { address: string; name: string; family: string }; token: ReturnType<typeof tokenRef> | null };

export type BoardToken = {
  token: ReturnType<typeof tokenRef>;
  lastClose: number;
  results: PeriodResult[];
  walkForward: {
    grid: {
      windowDays: number;
      windows: { from: string; to: string; returnPct: number; holdReturnPct: number; roundTrips: number }[];
      averageReturnPct: number | null;
      worstReturnPct: number | null;
      positiveWindows: number;
    };
    dipLadder: {
      starts: { start: string; end: string; complete: boolean; returnPct: number; holdReturnPct: number }[];
      averageReturnPct: number | null;
      worstReturnPct: number | null;
      positiveStarts: number;
    };
  };
  /** Trades of the grid over the latest 7-day window (or the longest one there is). */
  latestTrades: { time: string; side: "buy" | "sell"; price: number; usdg: number }[];
};

export type BoardPayload = {
  asOf: string;
  asOfUnix: number;
  fees: { gridFeeBps: number; ladderFeeBps: number };
  tokens: BoardToken[];
  vaults: { vault: { address: string; name: string; family: string }; token: ReturnType<typeof tokenRef> | null; results: PeriodResult[] }[];
};

/** The board job: compute, store, then record the day's picks and follow the open ones on paper. */
export async function runFinderBoard(ctx: ScanContext): Promise<BoardPayload> {
  const chain = await scanChain(ctx);
  const now = ctx.now();
  const asOf = asOfBucket(now);
  const fees = await ctx.fees();
  const board: BoardPayload = {
    asOf: iso(asOf),
    asOfUnix: asOf,
    fees: { gridFeeBps: fees.gridFeeBps, ladderFeeBps: fees.ladderFeeBps },
    tokens: [],
    vaults: [],
  };
  const tokens = await readChartedTokens(ctx.reads);
  const byAddress = new Map(tokens.map((t) => [t.address.toLowerCase(), t]));
  const holdFns = new Map<string, (from: number) => number | null>();
  for (const token of tokens) {
    const s = await loadSeries(ctx.reads, token.address, asOf - BOARD_HISTORY_DAYS * DAY, asOf, "1h");
    if (s.length < 2) continue;
    const last = s.close[s.length - 1]!;
    holdFns.set(token.address.toLowerCase(), (from) => {
      const w = seriesBetween(s, from, asOf + 1);
      return w.length ? (last / w.open[0]! - 1) * 100 : null;
    });
    const plan = planGrid(s, { amountUsd: BOARD_BUDGET_USD, feeBps: fees.gridFeeBps, now: asOf, days: BOARD_HISTORY_DAYS });
    const record = dipLadderRecord(s, asOf, BOARD_BUDGET_USD, fees.ladderFeeBps);
    const results = tokenPeriodResults(s, asOf, fees);
    const latest = results.filter((r) => r.style === "grid" && r.periodDays <= 7).at(-1);
    const trades = latest
      ? backtestGrid(seriesBetween(s, latest.from, asOf + 1), {
          buyPrice: latest.buyPrice!,
          sellPrice: latest.sellPrice!,
          amountUsd: BOARD_BUDGET_USD,
          repeat: true,
          feeBps: fees.gridFeeBps,
          recordTrades: true,
        }).tradeList
      : [];
    board.tokens.push({
      token: tokenRef(token),
      lastClose: s.close[s.length - 1]!,
      results,
      walkForward: {
        grid: {
          windowDays: plan.windowDays,
          windows: plan.windows.map((w) => ({
            from: iso(w.from),
            to: iso(w.to),
            returnPct: pct(w.returnPct),
            holdReturnPct: pct(w.holdReturnPct),
            roundTrips: w.roundTrips,
          })),
          averageReturnPct: plan.averageReturnPct === null ? null : pct(plan.averageReturnPct),
          worstReturnPct: plan.worstReturnPct === null ? null : pct(plan.worstReturnPct),
          positiveWindows: plan.positiveWindows,
        },
        dipLadder: {
          starts: record.runs.map((r) => ({
            start: iso(r.start),
            end: iso(r.end),
            complete: r.complete,
            returnPct: pct(r.returnPct),
            holdReturnPct: pct(r.holdReturnPct),
          })),
          averageReturnPct: record.averageReturnPct === null ? null : pct(record.averageReturnPct),
          worstReturnPct: record.worstReturnPct === null ? null : pct(record.worstReturnPct),
          positiveStarts: record.positiveStarts,
        },
      },
      latestTrades: trades.slice(-50).map((t) => ({ time: iso(t.time), side: t.side, price: t.price, usdg: usd(t.usdg) })),
    });
  }
  for (const v of ctx.deployments.vaults.filter((x) => x.agent)) {
    const prices = await readVaultSharePrices(ctx.reads, v.address, asOf - (MAX_PERIOD_DAYS + 1) * DAY, asOf);
    const token = byAddress.get(v.token.toLowerCase());
    const hold = holdFns.get(v.token.toLowerCase()) ?? (() => null);
    const results = vaultPeriodResults(prices, asOf, hold);
    if (results.length)
      board.vaults.push({ vault: { address: getAddress(v.address), name: v.name, family: v.family }, token: token ? tokenRef(token) : null, results });
  }
  await storeScan(ctx.db, "strategy-finder", "board", board, now, chain);
  await recordPicks(ctx, board, chain);
  await followPicks(ctx, asOf, chain);
  return board;
}

export function boardEntries(board: BoardPayload): BoardEntry<Subject>[] {
  const out: BoardEntry<Subject>[] = [];
  for (const t of board.tokens)
    for (const r of t.results) out.push({ key: t.token.address, category: t.token.category, result: r, subject: { kind: "token", token: t.token } });
  for (const v of board.vaults)
    for (const r of v.results)
      out.push({ key: v.vault.address, category: v.token?.category ?? "unclassified", result: r, subject: { kind: "vault", vault: v.vault, token: v.token } });
  return out;
}

/** Run parameters of a result: the prepare route and body (the caller adds `owner`). */
export function runParameters(r: PeriodResult, subject: Subject, budgetUsd: number, ladderFeeBps: number, lastClose: number | null) {
  if (r.style === "grid" && subject.kind === "token") {
    return {
      route: "/v1/agent/prepare/grid",
      body: {
        action: "open",
        token: subject.token.address,
        buyPrice: priceString(r.buyPrice!),
        sellPrice: priceString(r.sellPrice!),
        amountUsdg: usd(budgetUsd).toFixed(2),
        repeat: true,
      } as Record<string, unknown>,
    };
  }
  if (r.style === "dip-ladder" && subject.kind === "token") {
    // Today's lines: from the latest close (the result's own start price is in the past).
    return {
      route: "/v1/agent/prepare/ladder-strategy",
      body: dipPrepareBody(subject.token.address, dipLadderLines(lastClose ?? r.startPrice!, budgetUsd, ladderFeeBps)) as Record<string, unknown>,
    };
  }
  const vault = subject.kind === "vault" ? subject.vault.address : "";
  return { route: "/v1/agent/prepare/vault-deposit", body: { vault, amount: usd(budgetUsd).toFixed(2) } as Record<string, unknown> };
}

export function nextSteps(r: PeriodResult, subject: Subject): string[] {
  if (subject.kind === "vault")
    return [
      `Read the vault: GET /v1/agent/vaults/${subject.vault.address}`,
      "Deposit: POST /v1/agent/prepare/vault-deposit with the run parameters and your owner address",
    ];
  const t = subject.token.address;
  if (r.style === "grid") {
    return [
      `Check today's lines: GET /v1/agent/grid/plan?token=${t}`,
      "Replay them: POST /v1/agent/backtest/grid",
      "Open: POST /v1/agent/prepare/grid with the run parameters (lines from the latest window; re-plan first) and your owner address",
    ];
  }
  return [
    `Check today's lines: GET /v1/agent/ladder/plan?token=${t}`,
    "Open: POST /v1/agent/prepare/ladder-strategy with the prepare body of the ladder plan (today's lines) and your owner address",
  ];
}

// ---------------------------------------------------------------- picks and their track record

const dayOf = (unix: number) => iso(unix).slice(0, 10);

async function recordPicks(ctx: ScanContext, board: BoardPayload, chain: string | null) {
  const day = dayOf(board.asOfUnix);
  if (await hasPicksOfDay(ctx.db, day, chain)) return;
  const ranked = rankBoard(boardEntries(board), { periodDays: 7 })
    .entries.filter((e) => e.subject.kind === "token" && e.result.returnPct > 0)
    .slice(0, PICKS_PER_DAY);
  if (!ranked.length) return;
  const rows = [];
  for (const [i, e] of ranked.entries()) {
    const token = e.subject.kind === "token" ? e.subject.token : null;
    const s = await loadSeries(ctx.reads, e.key, board.asOfUnix - 3600, board.asOfUnix, "1h");
    if (!token || s.length === 0) continue;
    const params = e.result.style === "grid" ? { buyPrice: e.result.buyPrice!, sellPrice: e.result.sellPrice! } : { startPrice: s.close[s.length - 1]! };
    rows.push({
      // Another chain's picks of the same day keep their ids (a devnet restart makes a new chain).
      id: createHash("sha256")
        .update(chain ? `${chain}:${day}:${i}` : `${day}:${i}`)
        .digest("hex")
        .slice(0, 24),
      chain,
      day,
      rank: i + 1,
      style: e.result.style,
      token: e.key.toLowerCase(),
      symbol: token.symbol,
      period_days: e.result.periodDays,
      params,
      board_return_pct: e.result.returnPct,
      start_price: s.close[s.length - 1]!,
      started_at: new Date(board.asOfUnix * 1000),
    });
  }
  if (rows.length) await insertPicks(ctx.db, rows);
}

/** Follows every pick not yet 7 days old on paper, from its start to now (or its 7th day). */
async function followPicks(ctx: ScanContext, asOf: number, chain: string | null) {
  // Only this chain's picks: another chain's prices say nothing of them.
  const open = await openPicksOf(ctx.db, chain);
  for (const p of open) {
    const start = Math.floor(new Date(p.started_at).getTime() / 1000);
    const end = Math.min(asOf, start + PAPER_DAYS * DAY);
    // 10-minute candles: the pick's start is a 10-minute bucket, so nothing before it is replayed.
    const s = await loadSeries(ctx.reads, p.token, start, end, "10m");
    if (s.length === 0) continue;
    const params = p.params as { buyPrice?: number; sellPrice?: number; startPrice?: number };
    const fees = await ctx.fees();
    let returnPct: number;
    let trades: number;
    if (p.style === "grid") {
      const r = backtestGrid(s, {
        buyPrice: params.buyPrice!,
        sellPrice: params.sellPrice!,
        amountUsd: BOARD_BUDGET_USD,
        repeat: true,
        feeBps: fees.gridFeeBps,
      });
      [returnPct, trades] = [r.returnPct, r.trades];
    } else {
      const r = runDipLadder(s, start, end + 1, BOARD_BUDGET_USD, fees.ladderFeeBps);
      if (!r) continue;
      [returnPct, trades] = [r.returnPct, r.buys + r.sells];
    }
    const hold = (s.close[s.length - 1]! / p.start_price - 1) * 100;
    const done = end >= start + PAPER_DAYS * DAY;
    await updatePickPaper(ctx.db, p.id, { returnPct, holdReturnPct: hold, trades, followedUntil: iso(end) }, done);
  }
}

export async function trackRecordSummary(db: Kysely<Database>, chain: string | undefined) {
  const rows = await picksWithPaper(db, chain);
  const done = rows.filter((r) => r.done);
  const returns = done.map((r) => Number((r.paper as { returnPct: number }).returnPct));
  return {
    picks: rows.length,
    finished: done.length,
    averageReturnPct: returns.length ? pct(returns.reduce((a, b) => a + b, 0) / returns.length) : null,
    positive: returns.filter((x) => x > 0).length,
  };
}

/** GET /v1/strategy-finder/track-record. With `chain` (the running chain's genesis hash), that chain's picks only. */
