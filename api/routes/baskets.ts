// GET /v1/baskets, /baskets/{pool}, /baskets/{pool}/history, /baskets/{pool}/account/{owner}: the
// public basket routes. A pool that is not a basket answers 404 UNKNOWN_BASKET.
import { ApiError } from "../../domain/errors.js";
import { basketAccountAnswer, basketDetailAnswer, basketHistoryAnswer, basketListAnswer } from "../../usecases/answers/baskets.js";
import type { AppContext, AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { createRouter } from "../router.js";
import { getBasket, getBasketAccount, getBasketHistory, listBaskets } from "../../contract/operations/baskets.js";

const seconds = (deps: Pick<AppDeps, "now">) => Math.floor(deps.now().getTime() / 1000);
const found = <T>(value: T | undefined): T => {
  if (value === undefined) throw new ApiError("UNKNOWN_BASKET", "Not a basket");
  return value;
};

export const basketRoutes = (deps: Pick<AppContext, "reads" | "deployments" | "now" | "chainState">) => {
  const chainState = deps.chainState;
  return createRouter<AppEnv>()
    .openapi(listBaskets, async (c) => ok(c, await basketListAnswer(deps, await chainState(), seconds(deps))))
    .openapi(getBasket, async (c) => ok(c, found(await basketDetailAnswer(deps, await chainState(), c.req.valid("param").pool, seconds(deps)))))
    .openapi(getBasketHistory, async (c) => ok(c, found(await basketHistoryAnswer(deps, c.req.valid("param").pool, c.req.valid("query").days, seconds(deps)))))
    .openapi(getBasketAccount, async (c) => {
      const { pool: address, owner } = c.req.valid("param");
      return ok(c, found(await basketAccountAnswer(deps, address, owner, seconds(deps))));
    });
};
