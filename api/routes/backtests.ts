// Backtests and planners (spec: "Backtests and planners"), under /v1/agent:
//   POST /backtest/grid, /backtest/ladder   replay over 10-minute candles; free up to 30 days, paid past it (x402)
//   GET  /ranges                            best grid lines per gap the fee allows; free up to 30 days, paid past it
//   GET  /grid/plan, /ladder/plan           planners over hourly prices at the live strategy fee
//   GET  /grid/tokens, /ladder/tokens       the latest scans (503 SCAN_PREPARING before the first)
// Backtests and planners run in a worker of the `backtest` queue when the app has a job client (else
// here); identical inputs share one job and its cached result. The fill rules are in every description.
// Past 30 days a run is paid with x402 v2 (the gate api/middleware/x402.ts, over usecases/payments/x402.ts): 402 PaymentRequired until a
// PAYMENT-SIGNATURE pays it, then the run, the settlement and PAYMENT-RESPONSE. Declared in contract/operations/backtests.ts.
import type { Context } from "hono";
import type { ServiceChainState } from "../../adapters/chain/service-state.js";
import { DEFAULT_PRICE_PER_DAY_USDG } from "../../domain/run-price.js";
import type { BacktestInputs } from "../../usecases/backtest-runs/jobs.js";
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
import { backtestOperations } from "../../contract/operations/backtests.js";
import { withCaller } from "../caller.js";
import type { AppContext, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { x402Gate } from "../middleware/x402.js";
import { createRouter } from "../router.js";

/** The paid kinds: their run-log strategy and what the price description calls them. */
const PAID_KINDS = {
  grid: { strategy: "grid-backtest", what: "A grid backtest" },
  ladder: { strategy: "ladder-backtest", what: "A ladder backtest" },
  ranges: { strategy: "ranges", what: "Ranges" },
} as const;

export const backtestRoutes = (deps: AppContext) => {
  const pricePerDayUsdg = deps.payments?.pricePerDayUsdg ?? DEFAULT_PRICE_PER_DAY_USDG;
  const { gridBacktest, ladderBacktest, rangesRoute, gridPlan, ladderPlan, gridTokens, ladderTokens } = backtestOperations(pricePerDayUsdg);
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
