// POST /v1/agent/baskets/plan: check a basket before making it (the plan is usecases/basket-plan.ts).
// 6 a minute per client, one at a time (429 RATE_LIMITED).
import { takeTurn } from "../../adapters/redis-claims.js";
import type { Context } from "hono";
import { ApiError } from "../../domain/errors.js";
import { planBasketAnswer, type BasketPlanDeps } from "../../usecases/basket-plan.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { clientIp, clientKey, DEFAULT_RATE_LIMIT, rateLimit } from "../middleware/rate-limit.js";
import { createRouter } from "../router.js";
import { budgetedAggregator } from "../../usecases/prepare/aggregator-queue.js";
import { planBasket } from "../../contract/operations/baskets-plan.js";

/** How long one client's plan may hold its turn (a crashed request frees it after this). */
const ONE_AT_A_TIME_MS = 30_000;

/** One plan at a time per client: a Redis lock; a Redis outage lets the plan through (as the limiter's insurance does). */
async function oneAtATime<T>(deps: AppDeps, key: string, run: () => Promise<T>): Promise<T> {
  const release = await takeTurn(deps.redis, key, ONE_AT_A_TIME_MS).catch(() => async () => {});
  if (!release) throw new ApiError("RATE_LIMITED", "One basket plan at a time: wait for your other plan to finish", undefined, { retryAfterSeconds: 1 });
  try {
    return await run();
  } finally {
    await release();
  }
}

export const basketPlanRoutes = (deps: AppDeps) => {
  const base = { ...DEFAULT_RATE_LIMIT, ...deps.rateLimit };
  const keyPrefix = `${base.keyPrefix}:basket-plan`;
  // Keyed on the client address (never an owner the body names), like the app's limit.
  const client = (c: Context) => clientKey(clientIp(c, base.trustProxyHops));
  // Counted after validation: a malformed request costs the client nothing but its 400.
  const limit = rateLimit({
    redis: deps.redis,
    logger: deps.logger,
    keyPrefix,
    points: 6,
    duration: 60,
    trustProxyHops: base.trustProxyHops,
    name: "basket-plan",
  });
  // The liquidity quotes spend the aggregator route budget that swap quotes and prepares share.
  const plan: BasketPlanDeps = { client: deps.client, deployments: deps.deployments, reads: deps.reads, aggregator: () => budgetedAggregator(deps) };
  return createRouter<AppEnv>().openapi(planBasket, async (c) => {
    const body = c.req.valid("json");
    await limit(c, async () => {});
    return ok(c, await oneAtATime(deps, `${keyPrefix}:busy:${client(c)}`, () => planBasketAnswer(plan, body)));
  });
};
