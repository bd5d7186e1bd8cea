// GET /v1/tokens: every charted token, busiest first, with its price, 24-hour volume, liquidity,
// category, verification and whether its limit-order, grid and ladder-strategy markets are open.
import { tokenListAnswer } from "../../usecases/answers/tokens.js";
import type { AppContext, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { createRouter } from "../router.js";
import { listTokens } from "../../contract/operations/tokens.js";

export const tokenRoutes = (deps: Pick<AppContext, "reads" | "deployments" | "now" | "chainState">) => {
  const chainState = deps.chainState;
  return createRouter<AppEnv>().openapi(listTokens, async (c) =>
    ok(c, await tokenListAnswer(deps, await chainState(), c.req.valid("query"), Math.floor(deps.now().getTime() / 1000))),
  );
};
