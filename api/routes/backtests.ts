// Backtests and planners (spec: "Backtests and planners"), under /v1/agent:
//   POST /backtest/grid, /backtest/ladder   replay over 10-minute candles; free up to 30 days, 402 past it
//   GET  /ranges                            best grid lines per gap the fee allows (402 declared; free now)
//   GET  /grid/plan, /ladder/plan           planners over hourly prices at the live strategy fee
//   GET  /grid/tokens, /ladder/tokens       the latest scans (503 SCAN_PREPARING before the first)
// Backtests and planners run in a worker of the `backtest` queue when the app has a job client (else
// here); identical inputs share one job and its cached result. The fill rules are in every description.
import { createRoute, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { backtestThroughJob, asOfBucket, type BacktestJobData, type BacktestKind, type BacktestInputs } from "../../usecases/backtest-runs/jobs.js";
import { runBacktest } from "../../usecases/backtest-runs/run.js";
import { readScan, scanAnswer, type GridScanPayload, type LadderScanPayload } from "../../usecases/backtest-runs/scans.js";
import { sharedServiceChainStateReader, type ServiceChainState } from "../../adapters/chain/service-state.js";
import { FILL_RULES } from "../../domain/backtest/fill-rules.js";
import { breakEvenGap } from "../../domain/backtest/ranges.js";
import { ApiError, type ErrorCode } from "../../domain/errors.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import {
  GridBacktestBody,
  GridBacktestResult,
  GridPlanAnswer,
  GridPlanQuery,
  GridTokensAnswer,
  GridTokensQuery,
  LadderBacktestBody,
  LadderBacktestResult,
  LadderPlanAnswer,
  LadderPlanQuery,
  LadderTokensAnswer,
  LadderTokensQuery,
  PaymentRequiredBody,
  RangesQuery,
  RangesResult,
} from "../../contract/backtests.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { createRouter } from "../create-router.js";
import { CAIP2_NETWORK, CHAIN_ID } from "../../domain/chain.js";

/** Days a backtest replays for free; more answers 402 (declared only: no payment is taken yet). */
export const FREE_BACKTEST_DAYS = 30;
/** Price of each day past the free window, USDG (the 402 declaration's amount). */
export const PRICE_PER_PAID_DAY_USDG = 0.01;

const TAGS = ["Backtests and planners"];
const rules = `\n\n${FILL_RULES}`;
const payment = (description: string) => ({ 402: { description, content: { "application/json": { schema: PaymentRequiredBody } } } });
const PAID = `Payment required past the free window (${FREE_BACKTEST_DAYS} days), in the x402 shape. Only the declaration is implemented: no payment is taken or verified yet.`;
const DECLARED = "Payment required, in the x402 shape: declared only; ranges are free now and never answer it.";
const responses = (schema: z.ZodType, what: string, codes: ErrorCode[], paid?: string) => ({
  200: okResponse(schema, what),
  ...errorResponses("BUSY", ...codes),
  ...(paid ? payment(paid) : {}),
});

const gridBacktest = createRoute({
  method: "post",
  path: "/backtest/grid",
  tags: TAGS,
  summary: "Replay a grid over past candles",
  description: `Replays a repeating buy line and sell line over 10-minute candles (days at most 90; free up to 30, more answers 402) at the grid strategy's live fee, and gives trades, round trips, fees, profit and end value.${rules}`,
  request: { body: { content: { "application/json": { schema: GridBacktestBody } }, required: true } },
  responses: responses(GridBacktestResult, "The replay", ["NO_CANDLES"], PAID),
});

const ladderBacktest = createRoute({
  method: "post",
  path: "/backtest/ladder",
  tags: TAGS,
  summary: "Replay one-shot limit orders over past candles",
  description: `Replays 1-20 one-shot limit orders (levels) over 10-minute candles at the limit-order hook's live commission, and gives the fills per level. Days at most 90; free up to 30, more answers 402.${rules}`,
  request: { body: { content: { "application/json": { schema: LadderBacktestBody } }, required: true } },
  responses: responses(LadderBacktestResult, "Fills per level", ["NO_CANDLES"], PAID),
});

const rangesRoute = createRoute({
  method: "get",
  path: "/ranges",
  tags: TAGS,
  summary: "Grid lines that made the most round trips or profit",
  description: `For every gap the fee allows (a round trip must pay both fees back), the buy line of the most round trips and of the most profit over 10-minute candles, and the best overall. 402 is declared but not answered: ranges are free now.${rules}`,
  request: { query: RangesQuery },
  responses: responses(RangesResult, "The best ranges", ["NO_CANDLES"], DECLARED),
});

const gridPlan = createRoute({
  method: "get",
  path: "/grid/plan",
  tags: TAGS,
  summary: "Today's grid lines from a walk-forward",
  description: `Walks forward over stored hourly prices (each week's lines are picked on the week before, then tested on it) at the grid strategy's live fee: today's buy and sell lines (the inputs of the grid prepare), a tighter and a wider choice, the verdict (good, weak or none, with reasons), the weekly results and the average and worst week.${rules}`,
  request: { query: GridPlanQuery },
  responses: responses(GridPlanAnswer, "The plan", ["NO_CANDLES", "GAP_TOO_TIGHT"]),
});

const ladderPlan = createRoute({
  method: "get",
  path: "/ladder/plan",
  tags: TAGS,
  summary: "The dip ladder on one token",
  description: `The dip ladder: 5 buys 10% apart below the price, each selling at +50% after fees, repeating (a ladder strategy). Its record on this token at the amount (started at every UTC midnight of the last 30 days, held a week), the verdict with reasons, today's lines and the exact ladder-strategy prepare body.${rules}`,
  request: { query: LadderPlanQuery },
  responses: responses(LadderPlanAnswer, "The plan", ["NO_CANDLES"]),
});

const gridTokens = createRoute({
  method: "get",
  path: "/grid/tokens",
  tags: TAGS,
  summary: "The latest grid scan",
  description: `The latest grid scan of every charted token at the live strategy fee (every 10 minutes, and as soon as the index is ready; 60 days of hourly prices, 200 USDG): good tokens first, then weak ones with their reasons. Each has today's lines (buyPrice, sellPrice, amountUsdg of the grid prepare) and its weekly walk-forward results. 503 SCAN_PREPARING (with Retry-After) until the first scan of this chain is stored.${rules}`,
  request: { query: GridTokensQuery },
  responses: responses(GridTokensAnswer, "The scan", ["SCAN_PREPARING"]),
});

const ladderTokens = createRoute({
  method: "get",
  path: "/ladder/tokens",
  tags: TAGS,
  summary: "The latest dip-ladder scan",
  description: `The dip ladder (5 buys 10% apart, each selling at +50% after fees, repeating) run on every scanned token, good first, each with its record (500 USD started at any midnight in the last 30 days, held a week), today's lines and warnings. 503 SCAN_PREPARING (with Retry-After) until the first scan of this chain is stored.${rules}`,
  request: { query: LadderTokensQuery },
  responses: responses(LadderTokensAnswer, "The scan", ["SCAN_PREPARING"]),
});

/** The live fees, or 503 UNAVAILABLE when the chain cannot be read and no earlier read is known. */
export async function liveState(deps: AppDeps): Promise<ServiceChainState> {
  const read = await sharedServiceChainStateReader(deps.client, deps.deployments)();
  const state = read.ok ? read.state : read.lastGood;
  if (!state) throw new ApiError("UNAVAILABLE", "Cannot read the live strategy fees from the chain now: retry shortly");
  return state;
}

function feeOf(state: ServiceChainState, which: "grid" | "ladder" | "hook"): number {
  const part = which === "grid" ? state.gridStrategy : which === "ladder" ? (state.ladderStrategy ?? state.gridStrategy) : state.limitOrderHook;
  if (!part) throw new ApiError("UNAVAILABLE", `The ${which === "hook" ? "limit-order hook" : `${which} strategy`} is not deployed on this chain`);
  return part.feeBps;
}

/** Runs a backtest kind through the worker queue, or here without one. */
export async function runKind<K extends BacktestKind>(deps: AppDeps, kind: K, input: BacktestInputs[K]): Promise<any> {
  const data = { kind, input, asOf: asOfBucket(deps.now()) } as BacktestJobData;
  return deps.jobs ? backtestThroughJob(deps.jobs, data) : runBacktest({ reads: deps.reads }, data);
}

/** The 402 answer in the x402 shape for a replay past the free window. */
function paymentRequired(c: Context, deps: AppDeps, state: ServiceChainState, days: number) {
  const usdg = deps.deployments.contracts.usdg;
  const payTo = state.serviceAdmin;
  if (!usdg || !payTo) throw new ApiError("UNAVAILABLE", "The payment details cannot be read now");
  const amount = Math.round((days - FREE_BACKTEST_DAYS) * PRICE_PER_PAID_DAY_USDG * 1e6);
  const body = {
    error: `Backtests are free up to ${FREE_BACKTEST_DAYS} days; ${days} days needs payment (declared only: payments are not taken yet, so ask for ${FREE_BACKTEST_DAYS} days or fewer)`,
    code: "PAYMENT_REQUIRED" as const,
    x402Version: 1 as const,
    accepts: [
      {
        scheme: "exact" as const,
        network: CAIP2_NETWORK,
        chainId: CHAIN_ID,
        asset: usdg,
        maxAmountRequired: String(amount),
        amount: (amount / 1e6).toFixed(6),
        payTo,
        resource: c.req.url,
        description: `${days - FREE_BACKTEST_DAYS} days past the free ${FREE_BACKTEST_DAYS}, at ${PRICE_PER_PAID_DAY_USDG} USDG a day`,
        mimeType: "application/json" as const,
        maxTimeoutSeconds: 300,
      },
    ],
  };
  return c.json(body, 402);
}

export const backtestRoutes = (deps: AppDeps) =>
  createRouter<AppEnv>()
    .openapi(gridBacktest, async (c) => {
      const b = c.req.valid("json");
      const state = await liveState(deps);
      if (b.days > FREE_BACKTEST_DAYS) return paymentRequired(c, deps, state, b.days) as never;
      const input = {
        token: b.token.toLowerCase(),
        buyPrice: b.buyPrice,
        sellPrice: b.sellPrice,
        amountUsd: b.amountUsd,
        repeat: b.repeat,
        days: b.days,
        feeBps: feeOf(state, "grid"),
      };
      return ok(c, await runKind(deps, "grid", input));
    })
    .openapi(ladderBacktest, async (c) => {
      const b = c.req.valid("json");
      const state = await liveState(deps);
      if (b.days > FREE_BACKTEST_DAYS) return paymentRequired(c, deps, state, b.days) as never;
      const input = { token: b.token.toLowerCase(), side: b.side, levels: b.levels, days: b.days, feeBps: feeOf(state, "hook") };
      return ok(c, await runKind(deps, "ladder", input));
    })
    .openapi(rangesRoute, async (c) => {
      const q = c.req.valid("query");
      const feeBps = q.feeBps ?? feeOf(await liveState(deps), "grid");
      return ok(c, await runKind(deps, "ranges", { token: q.token.toLowerCase(), days: q.days, feeBps, amountUsd: q.amountUsd }));
    })
    .openapi(gridPlan, async (c) => {
      const q = c.req.valid("query");
      const feeBps = feeOf(await liveState(deps), "grid");
      if (q.gap !== undefined && q.gap <= breakEvenGap(feeBps)) {
        throw new ApiError(
          "GAP_TOO_TIGHT",
          `A gap of ${q.gap} does not pay back the ${feeBps / 100}% fee on both trades: use more than ${breakEvenGap(feeBps).toFixed(5)}`,
        );
      }
      return ok(c, await runKind(deps, "grid-plan", { token: q.token.toLowerCase(), amountUsd: q.amountUsd, gap: q.gap, days: q.days, feeBps }));
    })
    .openapi(ladderPlan, async (c) => {
      const q = c.req.valid("query");
      const feeBps = feeOf(await liveState(deps), "ladder");
      return ok(c, await runKind(deps, "ladder-plan", { token: q.token.toLowerCase(), amountUsd: q.amountUsd, feeBps }));
    })
    .openapi(gridTokens, async (c) => {
      const q = c.req.valid("query");
      const { payload, at } = await readScan<GridScanPayload>(deps.db, "grid-tokens", "latest", deps.index?.chain());
      const tokens = scanAnswer(payload.tokens, { limit: q.limit, include: q.include, category: q.category, score: (e) => e.averageReturnPct });
      return ok(c, {
        asOf: payload.asOf,
        scannedAt: at.toISOString(),
        feeBps: payload.feeBps,
        days: payload.days,
        amountUsd: payload.amountUsd,
        scanned: payload.tokens.length,
        tokens,
      });
    })
    .openapi(ladderTokens, async (c) => {
      const q = c.req.valid("query");
      const { payload, at } = await readScan<LadderScanPayload>(deps.db, "ladder-tokens", "latest", deps.index?.chain());
      const tokens = scanAnswer(payload.tokens, { limit: q.limit, include: q.include, score: (e) => e.record.averageReturnPct });
      return ok(c, {
        asOf: payload.asOf,
        scannedAt: at.toISOString(),
        feeBps: payload.feeBps,
        amountUsd: payload.amountUsd,
        scanned: payload.tokens.length,
        tokens,
      });
    });
