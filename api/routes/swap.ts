// GET /v1/agent/swap/quote: what the aggregator pays now for a swap on the service's router, after the
// 0.1% fee, and the minimum at slippageBps. Nothing is stored; the aggregator call spends the route
// budget that prepares share (the `aggregator` queue when the app has a job client: 429 BUSY past it).
import { budgetedAggregator } from "../../usecases/prepare/aggregator-queue.js";
import { callerOf } from "../caller.js";
import { quoteSwap } from "../../usecases/prepare/resolve/swap.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { createRouter } from "../router.js";
import { getQuote } from "../../contract/operations/swap.js";

export const swapRoutes = (deps: AppDeps) =>
  createRouter<AppEnv>().openapi(getQuote, async (c) => {
    const aggregator = budgetedAggregator(deps, callerOf(c, deps));
    return ok(c, await quoteSwap(deps.client!, deps.deployments, aggregator, c.req.valid("query")));
  });
