// GET /v1/tokens, declared (served by api/routes/tokens.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, okResponse } from "../fields.js";
import { TokenListing, TokensQuery } from "../tokens.js";

export const listTokens = createRoute({
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
