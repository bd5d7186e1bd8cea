// POST /v1/agent/baskets/plan, declared (served by api/routes/baskets-plan.ts).
import { createRoute } from "@hono/zod-openapi";
import { BasketPlan, BasketPlanBody } from "../basket-plan.js";
import { errorResponses, okResponse } from "../fields.js";

export const planBasket = createRoute({
  method: "post",
  path: "/baskets/plan",
  tags: ["Baskets"],
  summary: "Plan a basket",
  description:
    "Checks a basket before basket-make; nothing is stored. 1-8 tokens (listed symbols or addresses), with every weight or none. The anchor (USDG by default, or WETH) is added at 10% when the basket holds neither; with no weights the anchor gets 10% and the rest share evenly. swapFeePct 0.3 or 1. Answers each token's kind, weight, trade-list status and liquidity class (from how much more a 1,000 USDG buy pays than a 10 USDG one: 2% and up is thin, 0.5% and up is fair; these quotes draw on the aggregator route budget), the look-back simulated with the service's keeper over past prices (or unavailable with a code and reason), the name check, listed baskets with the same tokens, the maker's readiness, ready and notes. Rate: 6 a minute per client, one at a time.",
  request: { body: { content: { "application/json": { schema: BasketPlanBody } }, required: true } },
  responses: {
    200: okResponse(BasketPlan, "The plan"),
    ...errorResponses(
      "UNKNOWN_TOKEN",
      "NATIVE_ETH_TOKEN",
      "DUPLICATE_TOKEN",
      "TOKEN_COUNT",
      "WEIGHTS_PARTIAL",
      "WEIGHTS_SUM",
      "WEIGHT_TOO_SMALL",
      "MAKE_FEE",
      "BUSY",
    ),
  },
});
