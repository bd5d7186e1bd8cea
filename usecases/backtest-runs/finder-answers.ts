// The strategy finder's answers: the board, one token's results, the picks' track record and a wallet's
// attempts, read from what the board job stored.
import type { Kysely } from "kysely";
import { getAddress } from "viem";
import type { Database } from "../../adapters/db/api-schema.js";
import { runsOfIdentity } from "../../adapters/db/finder-runs.js";
import { latestPicks } from "../../adapters/db/strategy-picks.js";
import { iso, pct, priceString, usd } from "../../domain/backtest/format.js";
import { ApiError } from "../../domain/errors.js";
import { rankBoard, type BoardEntry, type FinderStyle, type PeriodResult } from "../../domain/strategy-finder/board.js";
import { NOTE } from "./answers.js";
import { readScan } from "./scans.js";
import type { Doable } from "./finder-doable.js";
import { sameAddress } from "../../domain/address.js";
import { boardEntries, CHIP_PERIODS, nextSteps, PAPER_DAYS, runParameters, trackRecordSummary, type BoardPayload, type Subject } from "./finder-board.js";

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
