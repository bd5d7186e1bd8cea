// GET /v1/agent/products, declared (served by api/routes/products.ts; the typed client infers its answer from it).
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, okResponse } from "../fields.js";
import { Products } from "../products.js";

export const getProducts = createRoute({
  method: "get",
  path: "/products",
  tags: ["Products"],
  summary: "What the service offers now",
  description:
    "Vaults (counts per family, how many take deposits), limit orders, grids, ladder strategies (only while offered) and baskets, " +
    "each with whether it is available and why. Chain state in it is at most 10 seconds old.",
  responses: { 200: okResponse(Products, "The products"), ...errorResponses() },
});
