// GET /v1/baskets, /baskets/{pool}, /baskets/{pool}/history, /baskets/{pool}/account/{owner}, declared (served by api/routes/baskets.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { Basket, BasketAccount, BasketHistory, BasketHistoryQuery } from "../baskets.js";
import { Address, errorResponses, okResponse } from "../fields.js";

const tags = ["Baskets"];

const pool = Address.openapi({ param: { name: "pool", in: "path" }, description: "The basket's pool (its basket token)" });

export const listBaskets = createRoute({
  method: "get",
  path: "/baskets",
  tags,
  summary: "The verified baskets",
  description: "Listed baskets with their tokens and weights, TVL, share price, fee APR and 7-day change.",
  responses: { 200: okResponse(z.array(Basket), "The listed baskets, oldest first"), ...errorResponses() },
});

export const getBasket = createRoute({
  method: "get",
  path: "/baskets/{pool}",
  tags,
  summary: "One live basket",
  description: "Any basket, also an unverified one: check its `listed` and `maker` fields. 404 UNKNOWN_BASKET when the pool is not a basket.",
  request: { params: z.object({ pool }) },
  responses: { 200: okResponse(Basket, "The basket"), ...errorResponses("UNKNOWN_BASKET") },
});

export const getBasketHistory = createRoute({
  method: "get",
  path: "/baskets/{pool}/history",
  tags,
  summary: "A basket's share price and TVL per day",
  description: "One point per UTC day over `days` days (1-90, default 7), today's at the time of the request. Past values are estimates (see `method`).",
  request: { params: z.object({ pool }), query: BasketHistoryQuery },
  responses: { 200: okResponse(BasketHistory, "The history"), ...errorResponses("UNKNOWN_BASKET") },
});

export const getBasketAccount = createRoute({
  method: "get",
  path: "/baskets/{pool}/account/{owner}",
  tags,
  summary: "One owner's holding and fees earned",
  description:
    "The owner's basket tokens, share of the pool, value, the token amounts they are a claim on, and an estimate of swap fees earned. An owner who holds none gets zeros.",
  request: { params: z.object({ pool, owner: Address.openapi({ param: { name: "owner", in: "path" }, description: "The holder's wallet" }) }) },
  responses: { 200: okResponse(BasketAccount, "The holding"), ...errorResponses("UNKNOWN_BASKET") },
});
