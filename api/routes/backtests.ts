// Backtests and planners (spec: "Backtests and planners"), under /v1/agent:
//   POST /backtest/grid, /backtest/ladder   replay over 10-minute candles; free up to 30 days, 402 past it
//   GET  /ranges                            best grid lines per gap the fee allows (402 declared; free now)
//   GET  /grid/plan, /ladder/plan           planners over hourly prices at the live strategy fee
//   GET  /grid/tokens, /ladder/tokens       the latest scans (503 SCAN_PREPARING before the first)
// Backtests and planners run in a worker of the `backtest` queue when the app has a job client (else
// here); identical inputs share one job and its cached result. The fill rules are in every description.
import { createRoute, type z } from "@hono/zod-openapi";
import {
  checkGap,
  feeOf,
  FREE_BACKTEST_DAYS,
  gridBacktestInput,
  gridTokensAnswer,
  ladderBacktestInput,
  ladderTokensAnswer,
  liveState,
  paymentRequired,
  runKind,
} from "../../usecases/backtest-runs/requests.js";
import { FILL_RULES } from "../../domain/backtest/fill-rules.js";
import type { ErrorCode } from "../../domain/errors.js";
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

export const backtestRoutes = (deps: AppDeps) =>
  createRouter<AppEnv>()
    .openapi(gridBacktest, async (c) => {
      const b = c.req.valid("json");
      const state = await liveState(deps);
      if (b.days > FREE_BACKTEST_DAYS) return c.json(paymentRequired(deps, state, b.days, c.req.url), 402) as never;
      return ok(c, await runKind(deps, "grid", gridBacktestInput(b, state)));
    })
    .openapi(ladderBacktest, async (c) => {
      const b = c.req.valid("json");
      const state = await liveState(deps);
      if (b.days > FREE_BACKTEST_DAYS) return c.json(paymentRequired(deps, state, b.days, c.req.url), 402) as never;
      return ok(c, await runKind(deps, "ladder", ladderBacktestInput(b, state)));
    })
    .openapi(rangesRoute, async (c) => {
      const q = c.req.valid("query");
      const feeBps = q.feeBps ?? feeOf(await liveState(deps), "grid");
      return ok(c, await runKind(deps, "ranges", { token: q.token.toLowerCase(), days: q.days, feeBps, amountUsd: q.amountUsd }));
    })
    .openapi(gridPlan, async (c) => {
      const q = c.req.valid("query");
      const feeBps = feeOf(await liveState(deps), "grid");
      checkGap(q.gap, feeBps);
      return ok(c, await runKind(deps, "grid-plan", { token: q.token.toLowerCase(), amountUsd: q.amountUsd, gap: q.gap, days: q.days, feeBps }));
    })
    .openapi(ladderPlan, async (c) => {
      const q = c.req.valid("query");
      const feeBps = feeOf(await liveState(deps), "ladder");
      return ok(c, await runKind(deps, "ladder-plan", { token: q.token.toLowerCase(), amountUsd: q.amountUsd, feeBps }));
    })
    .openapi(gridTokens, async (c) => ok(c, await gridTokensAnswer(deps.db, c.req.valid("query"), deps.index?.chain())))
    .openapi(ladderTokens, async (c) => ok(c, await ladderTokensAnswer(deps.db, c.req.valid("query"), deps.index?.chain())));
