// GET /v1/agent/products: what the service offers now. Strategy fees, pause flags and ladder markets
// come from the chain, read at most every 10 seconds; with the RPC down the answer says so in each
// `reason` and gives null where it cannot know (never a 500).
import { productsAnswer } from "../../usecases/answers/products.js";
import type { AppContext, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { getProducts } from "../../contract/operations/products.js";
import { createRouter } from "../router.js";

export const productRoutes = (deps: Pick<AppContext, "reads" | "deployments" | "now" | "chainState">) => {
  const chainState = deps.chainState;
  return createRouter<AppEnv>().openapi(getProducts, async (c) => ok(c, await productsAnswer(deps, await chainState(), deps.now())));
};
