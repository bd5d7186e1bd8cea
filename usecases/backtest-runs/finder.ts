// The strategy finder (I/O side): the board job (every token's and vault's results over 1-30 day
// windows, stored in scan_result; the day's picks stored and followed on paper for 7 days), the
// answers of its routes, its on-demand backtest and the log of those runs.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { getAddress } from "viem";
import type { Database } from "../../adapters/db/api-schema.js";
import { countRunsSince, insertFinderRun, runsOfIdentity } from "../../adapters/db/finder-runs.js";
import { hasPicksOfDay, insertPicks, latestPicks, openPicksOf, picksWithPaper, updatePickPaper } from "../../adapters/db/strategy-picks.js";
import { dipLadderLines, dipLadderRecord, runDipLadder } from "../../domain/backtest/dip-ladder.js";
import { iso, pct, priceString, usd } from "../../domain/backtest/format.js";
import { backtestGrid } from "../../domain/backtest/grid.js";
import { planGrid } from "../../domain/backtest/grid-plan.js";
import { seriesBetween } from "../../domain/backtest/series.js";
import { ApiError } from "../../domain/errors.js";
import {
  BOARD_BUDGET_USD,
  MAX_PERIOD_DAYS,
  rankBoard,
  tokenPeriodResults,
  vaultPeriodResults,
  type BoardEntry,
  type FinderStyle,
  type PeriodResult,
} from "../../domain/strategy-finder/board.js";
import { readChartedTokens, type ChartedToken } from "../../adapters/db/reads/candles.js";
import { loadSeries, readVaultSharePrices } from "./candles.js";
import type { FinderBacktestInput } from "./jobs.js";
import { asOfBucket } from "./jobs.js";
import { dipPrepareBody, NOTE, tokenRef, tokenSeries, type BacktestContext } from "./answers.js";
import { readScan, scanChain, storeScan, type ScanContext } from "./scans.js";
import type { Doable } from "./finder-doable.js";
import { DAY_MS, DAY_S } from "../../domain/price.js";
import { sameAddress } from "../../domain/address.js";

const DAY = DAY_S;
/** History loaded per token: the longest window and the window before it (grid lines are picked there). */
const BOARD_HISTORY_DAYS = 2 * MAX_PERIOD_DAYS;
const PAPER_DAYS = 7;
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

function boardEntries(board: BoardPayload): BoardEntry<Subject>[] {
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

function nextSteps(r: PeriodResult, subject: Subject): string[] {
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

export type BoardQuery = { budgetUsd: number; periodDays: number; token?: string; category?: string; strategy?: FinderStyle };

/**
 * GET /v1/strategy-finder from the stored board: only results whose run body prepares now (`doable`,
 * usecases/backtest-runs/finder-doable.ts), ranked after that filter.
 */
export async function boardAnswer(db: Kysely<Database>, q: BoardQuery, chain: string | undefined, doable: Doable) {
  const { payload: board } = await readScan<BoardPayload>(db, "strategy-finder", "board", chain);
  const key = q.token ? (board.tokens.find((t) => sameAddress(t.token.address, q.token))?.token.address ?? getAddress(q.token)) : undefined;
  const entries = boardEntries(board).filter((e) => doable(e.key, e.result.style, q.budgetUsd));
  const ranked = rankBoard(entries, { periodDays: q.periodDays, style: q.strategy, key, category: q.category });
  const walk = (e: BoardEntry<Subject>) => {
    if (e.subject.kind === "vault") return null;
    const t = board.tokens.find((x) => x.token.address === e.key)!;
    return e.result.style === "grid"
      ? {
          kind: "grid-weekly",
          windows: t.walkForward.grid.windows.length,
          averageReturnPct: t.walkForward.grid.averageReturnPct,
          worstReturnPct: t.walkForward.grid.worstReturnPct,
          positive: t.walkForward.grid.positiveWindows,
        }
      : {
          kind: "dip-ladder-starts",
          windows: t.walkForward.dipLadder.starts.length,
          averageReturnPct: t.walkForward.dipLadder.averageReturnPct,
          worstReturnPct: t.walkForward.dipLadder.worstReturnPct,
          positive: t.walkForward.dipLadder.positiveStarts,
        };
  };
  return {
    asOf: board.asOf,
    period: `${ranked.periodDays}d`,
    requestedPeriod: `${q.periodDays}d`,
    budgetUsd: q.budgetUsd,
    widened: ranked.widened,
    shorterWindow: ranked.shorterWindow,
    fees: board.fees,
    results: ranked.entries.map((e, i) => ({
      rank: i + 1,
      ...resultFigures(e.result, q.budgetUsd),
      subject: e.subject,
      walkForward: walk(e),
      run: runParameters(e.result, e.subject, q.budgetUsd, board.fees.ladderFeeBps, board.tokens.find((x) => x.token.address === e.key)?.lastClose ?? null),
      nextSteps: nextSteps(e.result, e.subject),
    })),
    trackRecord: await trackRecordSummary(db, chain),
    note: NOTE,
  };
}

function resultFigures(r: PeriodResult, budgetUsd: number) {
  return {
    style: r.style,
    from: iso(r.from),
    to: iso(r.to),
    periodDays: r.periodDays,
    returnPct: pct(r.returnPct),
    pnlUsd: usd((budgetUsd * r.returnPct) / 100),
    holdReturnPct: pct(r.holdReturnPct),
    holdPnlUsd: usd((budgetUsd * r.holdReturnPct) / 100),
    trades: r.trades,
  };
}

/** GET /v1/strategy-finder/{token} from the stored board. */
export async function tokenAnswer(db: Kysely<Database>, token: string, periodDays: number, budgetUsd: number, chain?: string) {
  const { payload: board } = await readScan<BoardPayload>(db, "strategy-finder", "board", chain);
  const t = board.tokens.find((x) => sameAddress(x.token.address, token));
  if (!t) throw new ApiError("NO_CANDLES", "The token is not on the strategy finder's board: it has no USDG market or no prices yet");
  const subject: Subject = { kind: "token", token: t.token };
  const at = (style: FinderStyle, n: number) => t.results.find((r) => r.style === style && r.periodDays === n) ?? null;
  const styles = (["grid", "dip-ladder"] as const).map((style) => {
    const r = at(style, periodDays) ?? t.results.filter((x) => x.style === style && x.periodDays < periodDays).at(-1) ?? null;
    return {
      style,
      result: r && {
        ...resultFigures(r, budgetUsd),
        run: runParameters(r, subject, budgetUsd, board.fees.ladderFeeBps, t.lastClose),
        nextSteps: nextSteps(r, subject),
      },
      chips: CHIP_PERIODS.map((n) => {
        const c = at(style, n);
        return { period: `${n}d`, returnPct: c ? pct(c.returnPct) : null, holdReturnPct: c ? pct(c.holdReturnPct) : null };
      }),
      walkForward:
        style === "grid"
          ? t.walkForward.grid.windows.map((w) => ({ start: w.from, end: w.to, complete: true, returnPct: w.returnPct, holdReturnPct: w.holdReturnPct }))
          : t.walkForward.dipLadder.starts.map((s) => ({
              start: s.start,
              end: s.end,
              complete: s.complete,
              returnPct: s.returnPct,
              holdReturnPct: s.holdReturnPct,
            })),
      latestTrades: style === "grid" ? t.latestTrades : [],
    };
  });
  return { asOf: board.asOf, token: t.token, period: `${periodDays}d`, budgetUsd, styles, note: NOTE };
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

async function trackRecordSummary(db: Kysely<Database>, chain: string | undefined) {
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
export async function trackRecordAnswer(db: Kysely<Database>, chain?: string) {
  const rows = await latestPicks(db, chain, 300);
  return {
    followDays: PAPER_DAYS,
    summary: await trackRecordSummary(db, chain),
    picks: rows.map((r) => {
      const paper = r.paper as { returnPct: number; holdReturnPct: number; trades: number; followedUntil: string } | null;
      return {
        day: r.day,
        rank: r.rank,
        style: r.style,
        token: { address: getAddress(r.token), symbol: r.symbol },
        periodDays: r.period_days,
        boardReturnPct: pct(r.board_return_pct),
        startPrice: r.start_price,
        startedAt: new Date(r.started_at).toISOString(),
        params: Object.fromEntries(Object.entries(r.params).map(([k, v]) => [k, priceString(Number(v))])),
        paper: paper && { returnPct: pct(paper.returnPct), holdReturnPct: pct(paper.holdReturnPct), trades: paper.trades, followedUntil: paper.followedUntil },
        done: r.done,
      };
    }),
    note: "Each day's picks (the board's best positive results over 7 days, at most 6) are followed on paper for 7 days with the settings picked, by the same fill rules.",
  };
}

// ---------------------------------------------------------------- on-demand backtests

/** POST /v1/strategy-finder/backtest: walk-forward (variant) or fixed settings over a period. */
export async function finderBacktest(ctx: BacktestContext, i: FinderBacktestInput, asOf: number) {
  const fixed = i.periodDays !== undefined || i.settings !== undefined;
  return fixed ? fixedBacktest(ctx, i, asOf) : walkForwardBacktest(ctx, i, asOf);
}

/** The head of a walk-forward answer: what was run, over how many days. */
const walkForwardHead = (i: FinderBacktestInput, token: ChartedToken, days: number) => ({
  mode: "walk-forward" as const,
  token: tokenRef(token),
  strategy: i.strategy,
  variant: i.variant ?? "standard",
  budgetUsd: i.budgetUsd,
  days,
  feeBps: i.feeBps,
});

/** The head of a fixed-settings answer: what was run, over which period. */
const fixedHead = (i: FinderBacktestInput, token: ChartedToken, periodDays: number, from: number, asOf: number) => ({
  mode: "fixed" as const,
  token: tokenRef(token),
  strategy: i.strategy,
  budgetUsd: i.budgetUsd,
  period: `${periodDays}d`,
  feeBps: i.feeBps,
  from: iso(from),
  to: iso(asOf),
});

/** Walk-forward: the settings the planner would pick, tried from every start of the window. */
async function walkForwardBacktest(ctx: BacktestContext, i: FinderBacktestInput, asOf: number) {
  const days = i.days ?? 30;
  const { token, series } = await tokenSeries(ctx, i.token, asOf - days * DAY, asOf, "1h");
  if (i.strategy === "grid") {
    const plan = planGrid(series, { amountUsd: i.budgetUsd, feeBps: i.feeBps, now: asOf, days });
    const pick = i.variant === "tighter" ? plan.tighter : i.variant === "wider" ? plan.wider : plan.today;
    return {
      ...walkForwardHead(i, token, days),
      verdict: plan.verdict,
      reasons: plan.reasons,
      starts: plan.windows.map((w) => ({
        start: iso(w.from),
        end: iso(w.to),
        returnPct: pct(w.returnPct),
        pnlUsd: usd(w.profitUsd),
        holdReturnPct: pct(w.holdReturnPct),
        trades: w.roundTrips * 2,
      })),
      averageReturnPct: plan.averageReturnPct === null ? null : pct(plan.averageReturnPct),
      worstReturnPct: plan.worstReturnPct === null ? null : pct(plan.worstReturnPct),
      run: pick
        ? {
            route: "/v1/agent/prepare/grid",
            body: {
              action: "open",
              token: tokenRef(token).address,
              buyPrice: priceString(pick.buyPrice),
              sellPrice: priceString(pick.sellPrice),
              amountUsdg: usd(i.budgetUsd).toFixed(2),
              repeat: true,
            } as Record<string, unknown>,
          }
        : null,
      note: NOTE,
    };
  }
  const rec = dipLadderRecord(series, asOf, i.budgetUsd, i.feeBps);
  const last = series.close[series.length - 1]!;
  return {
    ...walkForwardHead(i, token, days),
    verdict: rec.starts === 0 ? ("none" as const) : rec.averageReturnPct! > 0 ? ("good" as const) : ("weak" as const),
    reasons: [`${rec.positiveStarts} of ${rec.starts} starts ended above the budget`],
    starts: rec.runs.map((r) => ({
      start: iso(r.start),
      end: iso(r.end),
      returnPct: pct(r.returnPct),
      pnlUsd: usd(r.profitUsd),
      holdReturnPct: pct(r.holdReturnPct),
      trades: r.buys + r.sells,
    })),
    averageReturnPct: rec.averageReturnPct === null ? null : pct(rec.averageReturnPct),
    worstReturnPct: rec.worstReturnPct === null ? null : pct(rec.worstReturnPct),
    run: {
      route: "/v1/agent/prepare/ladder-strategy",
      body: dipPrepareBody(token.address, dipLadderLines(last, i.budgetUsd, i.feeBps)) as Record<string, unknown>,
    },
    note: NOTE,
  };
}

/** Fixed settings over one period ending now. */
async function fixedBacktest(ctx: BacktestContext, i: FinderBacktestInput, asOf: number) {
  const periodDays = i.periodDays ?? 7;
  const { token, series } = await tokenSeries(ctx, i.token, asOf - periodDays * DAY, asOf, "1h");
  const hold = (series.close[series.length - 1]! / series.open[0]! - 1) * 100;
  if (i.strategy === "grid") {
    const buy = i.settings?.buyPrice;
    const sell = i.settings?.sellPrice;
    if (buy === undefined || sell === undefined || !(sell > buy))
      throw new ApiError("INVALID_REQUEST", "settings: a grid needs buyPrice and sellPrice, sellPrice above buyPrice");
    const r = backtestGrid(series, { buyPrice: buy, sellPrice: sell, amountUsd: i.budgetUsd, repeat: true, feeBps: i.feeBps });
    return {
      ...fixedHead(i, token, periodDays, series.start[0]!, asOf),
      returnPct: pct(r.returnPct),
      pnlUsd: usd(r.profitUsd),
      holdReturnPct: pct(hold),
      holdPnlUsd: usd((i.budgetUsd * hold) / 100),
      trades: r.trades,
      roundTrips: r.roundTrips,
      feesUsd: usd(r.feesUsd),
      note: NOTE,
    };
  }
  const startPrice = i.settings?.startPrice ?? series.open[0]!;
  let value = 0;
  let trades = 0;
  let roundTrips = 0;
  let fees = 0;
  for (const l of dipLadderLines(startPrice, i.budgetUsd, i.feeBps)) {
    const r = backtestGrid(series, { buyPrice: l.buyPrice, sellPrice: l.sellPrice, amountUsd: l.amountUsd, repeat: true, feeBps: i.feeBps });
    value += r.endValueUsd;
    trades += r.trades;
    roundTrips += r.roundTrips;
    fees += r.feesUsd;
  }
  return {
    ...fixedHead(i, token, periodDays, series.start[0]!, asOf),
    returnPct: pct((value / i.budgetUsd - 1) * 100),
    pnlUsd: usd(value - i.budgetUsd),
    holdReturnPct: pct(hold),
    holdPnlUsd: usd((i.budgetUsd * hold) / 100),
    trades,
    roundTrips,
    feesUsd: usd(fees),
    note: NOTE,
  };
}

/**
 * Every on-demand run is logged; with an identity only when it was made with that wallet's signed-in
 * owner session (the route passes the session's owner, never a wallet the body names).
 */
export async function logFinderRun(
  db: Kysely<Database>,
  input: FinderBacktestInput,
  identity: { kind: "wallet"; value: string } | undefined,
  summary: Record<string, unknown>,
  now: Date,
  client: string | null = null,
) {
  await insertFinderRun(db, {
    client,
    identity_kind: identity?.kind ?? null,
    identity_value: identity ? identity.value.toLowerCase() : null,
    token: input.token.toLowerCase(),
    strategy: input.strategy,
    input: input as unknown as Record<string, unknown>,
    summary,
    created_at: now,
  });
}

/**
 * On-demand runs one client may make in a day (issue 32: bounded state per client): every run is logged and
 * kept 90 days, so a client's share of the log is at most this a day. Past it, 429 RATE_LIMITED.
 */
export const FINDER_RUNS_PER_CLIENT_PER_DAY = 200;

/** The client's runs of the day before `now`, counted up to the bound, and when the oldest of them leaves the day. */
export async function recentRunsOf(db: Kysely<Database>, client: string, now: Date): Promise<{ count: number; firstLeaves: Date | null }> {
  const row = await countRunsSince(db, client, new Date(now.getTime() - DAY_MS), FINDER_RUNS_PER_CLIENT_PER_DAY);
  return { count: Number(row.n), firstLeaves: row.first ? new Date(new Date(row.first as Date).getTime() + DAY_MS) : null };
}

/** GET /v1/strategy-finder/attempts: runs made with this wallet's owner session. */
export async function attemptsAnswer(db: Kysely<Database>, kind: "wallet", value: string) {
  const row = await runsOfIdentity(db, kind, value);
  const last = row?.last ? new Date(row.last).toISOString() : null;
  return {
    kind,
    value: getAddress(value),
    runs: Number(row?.n ?? 0),
    lastRunAt: last,
    scope: "wallet (the runs made with this wallet's signed-in owner session, over the 90 days run logs are kept)",
  };
}

export type { ChartedToken };
