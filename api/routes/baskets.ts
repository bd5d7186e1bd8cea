// GET /v1/baskets, /baskets/{pool}, /baskets/{pool}/history, /baskets/{pool}/account/{owner}: the
// public basket routes. A pool that is not a basket answers 404 UNKNOWN_BASKET.
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../domain/errors.js";
import { basketAccountAnswer, basketDetailAnswer, basketHistoryAnswer, basketListAnswer } from "../../usecases/answers/baskets.js";
import type { AppContext, AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { Basket, BasketAccount, BasketHistory, BasketHistoryQuery } from "../../contract/baskets.js";
import { Address, errorResponses, okResponse } from "../../contract/fields.js";
import { createRouter } from "../router.js";

const tags = ["Baskets"];
const pool = Address.openapi({ param: { name: "pool", in: "path" }, description: "The basket's pool (its basket token)" });

const listBaskets = createRoute({
  method: "get",
  path: "/baskets",
  tags,
  summary: "The verified baskets",
  description: "Listed baskets with their tokens and weights, TVL, share price, fee APR and 7-day change.",
  responses: { 200: okResponse(z.array(Basket), "The listed baskets, oldest first"), ...errorResponses() },
});

const getBasket = createRoute({
  method: "get",
  path: "/baskets/{pool}",
  tags,
  summary: "One live basket",
  description: "Any basket, also an unverified one: check its `listed` and `maker` fields. 404 UNKNOWN_BASKET when the pool is not a basket.",
  request: { params: z.object({ pool }) },
  responses: { 200: okResponse(Basket, "The basket"), ...errorResponses("UNKNOWN_BASKET") },
});

const getBasketHistory = createRoute({
  method: "get",
  path: "/baskets/{pool}/history",
  tags,
  summary: "A basket's share price and TVL per day",
  description: "One point per UTC day over `days` days (1-90, default 7), today's at the time of the request. Past values are estimates (see `method`).",
  request: { params: z.object({ pool }), query: BasketHistoryQuery },
  responses: { 200: okResponse(BasketHistory, "The history"), ...errorResponses("UNKNOWN_BASKET") },
});

const getBasketAccount = createRoute({
  method: "get",
  path: "/baskets/{pool}/account/{owner}",
  tags,
  summary: "One owner's holding and fees earned",
  description:
    "The owner's basket tokens, share of the pool, value, the token amounts they are a claim on, and an estimate of swap fees earned. An owner who holds none gets zeros.",
  request: { params: z.object({ pool, owner: Address.openapi({ param: { name: "owner", in: "path" }, description: "The holder's wallet" }) }) },
  responses: { 200: okResponse(BasketAccount, "The holding"), ...errorResponses("UNKNOWN_BASKET") },
});

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
