// GET /v1/agent/swap/quote, declared (served by api/routes/swap.ts).
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, okResponse } from "../fields.js";
import { SwapQuote, SwapQuoteQuery } from "../swap.js";

export const getQuote = createRoute({
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
