// The backtests and planners under /v1/agent, declared (served by api/routes/backtests.ts). The paid ones
// name the price per day, which the service is configured with: hence a function of it.
import { createRoute, type z } from "@hono/zod-openapi";
import { formatUnits } from "viem";
import { FILL_RULES } from "../../domain/backtest/fill-rules.js";
import { CAIP2_NETWORK } from "../../domain/chain.js";
import type { ErrorCode } from "../../domain/errors.js";
import { USDG_DECIMALS } from "../../domain/price.js";
import { FREE_DAYS, runPrice } from "../../domain/run-price.js";
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
} from "../backtests.js";
import { errorResponses, okResponse } from "../fields.js";

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
const responses = <S extends z.ZodType>(schema: S, what: string, codes: ErrorCode[], paid?: string) => ({
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
export function backtestOperations(pricePerDayUsdg: number) {
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
