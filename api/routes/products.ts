// GET /v1/agent/products: what the service offers now. Strategy fees, pause flags and ladder markets
// come from the chain, read at most every 10 seconds; with the RPC down the answer says so in each
// `reason` and gives null where it cannot know (never a 500).
import { createRoute } from "@hono/zod-openapi";
import { productsAnswer } from "../../usecases/answers/products.js";
import type { AppContext, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { errorResponses, okResponse } from "../../contract/fields.js";
import { Products } from "../../contract/products.js";
import { createRouter } from "../router.js";

const getProducts = createRoute({
  method: "get",
  path: "/products",
  tags: ["Products"],
  summary: "What the service offers now",
  description:
    "Vaults (counts per family, how many take deposits), limit orders, grids, ladder strategies (only while offered) and baskets, " +
    "each with whether it is available and why. Chain state in it is at most 10 seconds old.",
  responses: { 200: okResponse(Products, "The products"), ...errorResponses() },
});

export const productRoutes = (deps: Pick<AppContext, "reads" | "deployments" | "now" | "chainState">) => {
  const chainState = deps.chainState;
  return createRouter<AppEnv>().openapi(getProducts, async (c) => ok(c, await productsAnswer(deps, await chainState(), deps.now())));
};
