// Backtests and planners (spec: "Backtests and planners"), under /v1/agent:
//   POST /backtest/grid, /backtest/ladder   replay over 10-minute candles; free up to 30 days, paid past it (x402)
//   GET  /ranges                            best grid lines per gap the fee allows; free up to 30 days, paid past it
//   GET  /grid/plan, /ladder/plan           planners over hourly prices at the live strategy fee
//   GET  /grid/tokens, /ladder/tokens       the latest scans (503 SCAN_PREPARING before the first)
// Backtests and planners run in a worker of the `backtest` queue when the app has a job client (else
// here); identical inputs share one job and its cached result. The fill rules are in every description.
// Past 30 days a run is paid with x402 v2 (the gate api/middleware/x402.ts, over usecases/payments/x402.ts): 402 PaymentRequired until a
// PAYMENT-SIGNATURE pays it, then the run, the settlement and PAYMENT-RESPONSE.
import { createRoute, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { formatUnits } from "viem";
import { USDG_DECIMALS } from "../../domain/price.js";
import {
  checkGap,
  feeOf,
  gridBacktestInput,
  gridTokensAnswer,
  ladderBacktestInput,
  ladderTokensAnswer,
  liveState,
  runKind,
} from "../../usecases/backtest-runs/requests.js";
import type { BacktestInputs } from "../../usecases/backtest-runs/jobs.js";
import { x402Gate } from "../middleware/x402.js";
import type { ServiceChainState } from "../../adapters/chain/service-state.js";
import { DEFAULT_PRICE_PER_DAY_USDG, FREE_DAYS, runPrice } from "../../domain/run-price.js";
import { FILL_RULES } from "../../domain/backtest/fill-rules.js";
import type { ErrorCode } from "../../domain/errors.js";
import type { AppContext, AppEnv } from "../deps.js";
import { withCaller } from "../caller.js";
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
  PaymentHeaders,
  PaymentRequiredBody,
  RangesQuery,
  RangesResult,
} from "../../contract/backtests.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { createRouter } from "../router.js";
import { CAIP2_NETWORK } from "../../domain/chain.js";

const TAGS = ["Backtests and planners"];
const rules = `\n\n${FILL_RULES}`;
const PAYMENT_HEADERS = {
  "PAYMENT-REQUIRED": { description: "x402 v2 PaymentRequired, base64 JSON (the same as the body without code)", schema: { type: "string" as const } },
};
const payment = (description: string) => ({
  402: { description, headers: PAYMENT_HEADERS, content: { "application/json": { schema: PaymentRequiredBody } } },
});
const PAID = `\`PAYMENT_REQUIRED\`: past the free window (${FREE_DAYS} days) without a payment, or with one refused (the reason in error): x402 v2's PaymentRequired.`;
const SETTLED = {
  "PAYMENT-RESPONSE": {
    description: "A paid run's settlement (x402 v2 SettleResponse, base64 JSON: success, transaction, network, payer)",
    schema: { type: "string" as const },
  },
};
const responses = (schema: z.ZodType, what: string, codes: ErrorCode[], paid?: string) => ({
  200: paid ? { ...okResponse(schema, what), headers: SETTLED } : okResponse(schema, what),
  ...errorResponses("BUSY", ...codes),
  ...(paid ? payment(paid) : {}),
});
/** How a run past the free window is paid, as every paid route's description says it. */
const howToPay = (pricePerDayUsdg: number) =>
  ` Past ${FREE_DAYS} days the run is paid: ${pricePerDayUsdg} USDG a day past ${FREE_DAYS} (60 days: ${formatUnits(runPrice(60, pricePerDayUsdg), USDG_DECIMALS)} USDG), with x402 v2 ` +
  `(scheme exact, USDG by EIP-3009 on ${CAIP2_NETWORK}). Without a payment it answers 402 with PaymentRequired (the PAYMENT-REQUIRED header and the body); ` +
  "send the signed payment in the PAYMENT-SIGNATURE header (@x402/fetch does it): the run happens, then the facilitator settles it and the 200 carries " +
  "PAYMENT-RESPONSE (the settlement transaction). A refused payment answers 402 with the reason; a facilitator that cannot be reached, 503 UNAVAILABLE (nothing run or charged). " +
  "Payment buys the run, not more rate: the rate limit is the same.";

/** The routes' definitions: the paid ones name the price per day (X402_PRICE_PER_DAY_USDG). */
function routeDefinitions(pricePerDayUsdg: number) {
  const pay = howToPay(pricePerDayUsdg);
  /** A paid replay: POST with a JSON body; the replay, or NO_CANDLES, or 402 past the free window. */
  const paidReplay = <B extends z.ZodType, R extends z.ZodType>(path: string, summary: string, description: string, body: B, result: R, what: string) =>
    createRoute({
      method: "post",
      path,
      tags: TAGS,
      summary,
      description: `${description}${pay}${rules}`,
      request: { headers: PaymentHeaders, body: { content: { "application/json": { schema: body } }, required: true } },
      responses: responses(result, what, ["NO_CANDLES"], PAID),
    });
  const gridBacktest = paidReplay(
    "/backtest/grid",
    "Replay a grid over past candles",
    "Replays a repeating buy line and sell line over 10-minute candles (days at most 90; free up to 30) at the grid strategy's live fee, and gives trades, round trips, fees, profit and end value.",
    GridBacktestBody,
    GridBacktestResult,
    "The replay",
  );
  const ladderBacktest = paidReplay(
    "/backtest/ladder",
    "Replay one-shot limit orders over past candles",
    "Replays 1-20 one-shot limit orders (levels) over 10-minute candles at the limit-order hook's live commission, and gives the fills per level. Days at most 90; free up to 30.",
    LadderBacktestBody,
    LadderBacktestResult,
    "Fills per level",
  );

  const rangesRoute = createRoute({
    method: "get",
    path: "/ranges",
    tags: TAGS,
    summary: "Grid lines that made the most round trips or profit",
    description: `For every gap the fee allows (a round trip must pay both fees back), the buy line of the most round trips and of the most profit over 10-minute candles, and the best overall. Days at most 90; free up to 30.${pay}${rules}`,
    request: { headers: PaymentHeaders, query: RangesQuery },
    responses: responses(RangesResult, "The best ranges", ["NO_CANDLES"], PAID),
  });

  /** A free GET with a query: the answer, or one of `codes`. */
  const freeGet = <Q extends z.ZodObject, A extends z.ZodType>(
    path: string,
    summary: string,
    description: string,
    query: Q,
    answer: A,
    what: string,
    codes: ErrorCode[],
  ) =>
    createRoute({
      method: "get",
      path,
      tags: TAGS,
      summary,
      description: `${description}${rules}`,
      request: { query },
      responses: responses(answer, what, codes),
    });
  const gridPlan = freeGet(
    "/grid/plan",
    "Today's grid lines from a walk-forward",
    "Walks forward over stored hourly prices (each week's lines are picked on the week before, then tested on it) at the grid strategy's live fee: today's buy and sell lines (the inputs of the grid prepare), a tighter and a wider choice, the verdict (good, weak or none, with reasons), the weekly results and the average and worst week.",
    GridPlanQuery,
    GridPlanAnswer,
    "The plan",
    ["NO_CANDLES", "GAP_TOO_TIGHT"],
  );

  const ladderPlan = freeGet(
    "/ladder/plan",
    "The dip ladder on one token",
    "The dip ladder: 5 buys 10% apart below the price, each selling at +50% after fees, repeating (a ladder strategy). Its record on this token at the amount (started at every UTC midnight of the last 30 days, held a week), the verdict with reasons, today's lines and the exact ladder-strategy prepare body.",
    LadderPlanQuery,
    LadderPlanAnswer,
    "The plan",
    ["NO_CANDLES"],
  );

  const gridTokens = freeGet(
    "/grid/tokens",
    "The latest grid scan",
    "The latest grid scan of every charted token at the live strategy fee (every 10 minutes, and as soon as the index is ready; 60 days of hourly prices, 200 USDG): good tokens first, then weak ones with their reasons. Each has today's lines (buyPrice, sellPrice, amountUsdg of the grid prepare) and its weekly walk-forward results. 503 SCAN_PREPARING (with Retry-After) until the first scan of this chain is stored.",
    GridTokensQuery,
    GridTokensAnswer,
    "The scan",
    ["SCAN_PREPARING"],
  );

  const ladderTokens = freeGet(
    "/ladder/tokens",
    "The latest dip-ladder scan",
    "The dip ladder (5 buys 10% apart, each selling at +50% after fees, repeating) run on every scanned token, good first, each with its record (500 USD started at any midnight in the last 30 days, held a week), today's lines and warnings. 503 SCAN_PREPARING (with Retry-After) until the first scan of this chain is stored.",
    LadderTokensQuery,
    LadderTokensAnswer,
    "The scan",
    ["SCAN_PREPARING"],
  );
  return { gridBacktest, ladderBacktest, rangesRoute, gridPlan, ladderPlan, gridTokens, ladderTokens };
}

/** The paid kinds: their run-log strategy and what the price description calls them. */
const PAID_KINDS = {
  grid: { strategy: "grid-backtest", what: "A grid backtest" },
  ladder: { strategy: "ladder-backtest", what: "A ladder backtest" },
  ranges: { strategy: "ranges", what: "Ranges" },
} as const;

export const backtestRoutes = (deps: AppContext) => {
  const pricePerDayUsdg = deps.payments?.pricePerDayUsdg ?? DEFAULT_PRICE_PER_DAY_USDG;
  const { gridBacktest, ladderBacktest, rangesRoute, gridPlan, ladderPlan, gridTokens, ladderTokens } = routeDefinitions(pricePerDayUsdg);
  const gate = x402Gate(deps, pricePerDayUsdg);
  /** A paid kind's run through the x402 gate: free up to FREE_DAYS, paid past it. */
  const paidRun = <K extends keyof typeof PAID_KINDS>(c: Context<AppEnv>, days: number, state: ServiceChainState, kind: K, input: BacktestInputs[K]) => {
    const { strategy, what } = PAID_KINDS[kind];
    return gate(c, { days, state, record: { strategy, token: input.token, input }, what }, () => runKind(withCaller(c, deps), kind, input));
  };
  return createRouter<AppEnv>()
    .openapi(gridBacktest, async (c) => {
      const b = c.req.valid("json");
      const state = await liveState(deps);
      return paidRun(c, b.days, state, "grid", gridBacktestInput(b, state));
    })
    .openapi(ladderBacktest, async (c) => {
      const b = c.req.valid("json");
      const state = await liveState(deps);
      return paidRun(c, b.days, state, "ladder", ladderBacktestInput(b, state));
    })
    .openapi(rangesRoute, async (c) => {
      const q = c.req.valid("query");
      const state = await liveState(deps);
      const input = { token: q.token.toLowerCase(), days: q.days, feeBps: q.feeBps ?? feeOf(state, "grid"), amountUsd: q.amountUsd };
      return paidRun(c, q.days, state, "ranges", input);
    })
    .openapi(gridPlan, async (c) => {
      const q = c.req.valid("query");
      const feeBps = feeOf(await liveState(deps), "grid");
      checkGap(q.gap, feeBps);
      return ok(c, await runKind(withCaller(c, deps), "grid-plan", { token: q.token.toLowerCase(), amountUsd: q.amountUsd, gap: q.gap, days: q.days, feeBps }));
    })
    .openapi(ladderPlan, async (c) => {
      const q = c.req.valid("query");
      const feeBps = feeOf(await liveState(deps), "ladder");
      return ok(c, await runKind(withCaller(c, deps), "ladder-plan", { token: q.token.toLowerCase(), amountUsd: q.amountUsd, feeBps }));
    })
    .openapi(gridTokens, async (c) => ok(c, await gridTokensAnswer(deps.db, c.req.valid("query"), deps.index?.scanChain())))
    .openapi(ladderTokens, async (c) => ok(c, await ladderTokensAnswer(deps.db, c.req.valid("query"), deps.index?.scanChain())));
};
