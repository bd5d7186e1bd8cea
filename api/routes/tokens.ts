// GET /v1/tokens: every charted token, busiest first, with its price, 24-hour volume, liquidity,
// category, verification and whether its limit-order, grid and ladder-strategy markets are open.
import { createRoute, z } from "@hono/zod-openapi";
import { tokenListAnswer } from "../../usecases/answers/tokens.js";
import type { AppContext, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { TokenListing, TokensQuery } from "../../contract/tokens.js";
import { createRouter } from "../router.js";

const listTokens = createRoute({
  method: "get",
  path: "/tokens",
  tags: ["Tokens"],
  summary: "Every charted token",
  description:
    "Tokens with a USDG market, busiest first by default. Limit orders, ladders and grids take any token by address. " +
    "An unverified token's symbol is its own: check the address (see `warning`).",
  request: { query: TokensQuery },
  responses: { 200: okResponse(z.array(TokenListing), "The tokens"), ...errorResponses() },
});

export const tokenRoutes = (deps: Pick<AppContext, "reads" | "deployments" | "now" | "chainState">) => {
  const chainState = deps.chainState;
  return createRouter<AppEnv>().openapi(listTokens, async (c) =>
    ok(c, await tokenListAnswer(deps, await chainState(), c.req.valid("query"), Math.floor(deps.now().getTime() / 1000))),
  );
};
