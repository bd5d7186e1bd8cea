// GET /v1/agent/swap/quote: what the aggregator pays now for a swap on the service's router, after the
// 0.1% fee, and the minimum at slippageBps. Nothing is stored; the aggregator call spends the route
// budget that prepares share (the `aggregator` queue when the app has a job client: 429 BUSY past it).
import { createRoute } from "@hono/zod-openapi";
import { budgetedAggregator } from "../../usecases/prepare/aggregator-queue.js";
import { callerOf } from "../caller.js";
import { quoteSwap } from "../../usecases/prepare/resolve/swap.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { SwapQuote, SwapQuoteQuery } from "../../contract/swap.js";
import { createRouter } from "../router.js";

const getQuote = createRoute({
  method: "get",
  path: "/swap/quote",
  tags: ["Swaps"],
  summary: "Quote a swap",
  description:
    "Any token for any token through the swap aggregator, on the service's swap router. tokenIn and tokenOut are listed symbols or addresses (ETH is native ETH out; native ETH in is refused: use WETH). expectedOut is after the router's 0.1% fee; minimumOut is expectedOut less slippageBps. Unlisted tokens are shown by address with symbol null and a warning. Nothing is stored: POST /v1/agent/prepare/swap asks the aggregator again. Shares the aggregator route budget with prepares (429 BUSY past it).",
  request: { query: SwapQuoteQuery },
  responses: {
    200: okResponse(SwapQuote, "The quote"),
    ...errorResponses("UNKNOWN_TOKEN", "NOT_A_TOKEN", "SAME_TOKEN", "NATIVE_ETH_IN", "SWAP_NO_ROUTE", "BUSY"),
  },
});

export const swapRoutes = (deps: AppDeps) =>
  createRouter<AppEnv>().openapi(getQuote, async (c) => {
    const aggregator = budgetedAggregator(deps, callerOf(c, deps));
    return ok(c, await quoteSwap(deps.client!, deps.deployments, aggregator, c.req.valid("query")));
  });
