// POST /v1/agent/prepare/{kind}: the body is validated here, the pipeline (usecases/prepare/pipeline.ts) runs
// in a worker of the `prepare` queue when the app has a job client (its aggregator calls then spend the
// route budget of the `aggregator` queue), else in this process (the aggregator called directly). The answer is the PrepareResult, already stored as the SignRequest and
// filed for the report card.
import { createRoute } from "@hono/zod-openapi";
import { ApiError, type ErrorCode } from "../../domain/errors.js";
import { prepareThroughJob } from "../../usecases/prepare/job.js";
import { checkReceivers, runPrepare } from "../../usecases/prepare/pipeline.js";
import { prepareKinds, type PrepareBodies, type PrepareKind } from "../../usecases/prepare/types.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { ok } from "../envelope.js";
import { errorResponses, knownFields, okResponse } from "../../contract/fields.js";
import { prepareBodies, PrepareResult } from "../../contract/prepare.js";
import { createRouter } from "../validation.js";

const PREPARE_CODES: ErrorCode[] = ["RECEIVER_NOT_OWNER", "SIMULATION_FAILED", "NOT_FOUND", "BUSY", "NOT_DEPLOYED"];

/** basket-buy's refusals (basket-sell answers them too, where they apply). */
const BASKET_TRADE_CODES: ErrorCode[] = [
  "UNKNOWN_BASKET", "BAD_TOKEN", "NATIVE_ETH_IN", "BASKET_SELL_ONLY", "BASKET_PAUSED", "TOKEN_PAUSED", "TOKEN_FROZEN", "AMOUNT_TOO_SMALL",
  "BASKET_NO_ROUTE", "PRICE_IMPACT_TOO_HIGH", "LEG_MINIMUM_TOO_LOW", "ROUTE_TOO_LARGE", "ZAP_UNAVAILABLE", "AGGREGATOR_CHANGED",
];

const codesOf: Record<PrepareKind, ErrorCode[]> = {
  "vault-deposit": ["NOT_AGENT_VAULT", "DEPOSITS_CLOSED", "DEPOSITS_PAUSED", "VAULT_FULL", "CAPACITY", "AMOUNT_TOO_SMALL", "AGGREGATOR_CHANGED", "SWAP_NO_ROUTE"],
  "vault-cancel-deposit": ["NOT_AGENT_VAULT", "NOT_YOUR_REQUEST", "REQUEST_NOT_PENDING"],
  "vault-withdraw": ["NOT_AGENT_VAULT", "NOTHING_TO_WITHDRAW", "BELOW_QUEUE_MINIMUM", "AMOUNT_TOO_SMALL", "AGGREGATOR_CHANGED", "SWAP_NO_ROUTE"],
  "vault-cancel-withdraw": ["NOT_AGENT_VAULT", "NOT_YOUR_REQUEST", "REQUEST_NOT_PENDING"],
  "limit-order": ["UNKNOWN_TOKEN", "MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL"],
  ladder: ["UNKNOWN_TOKEN", "MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL"],
  "order-action": ["NOT_YOUR_ORDER", "ORDER_CLOSED", "NOTHING_FILLED", "NOTHING_TO_CLAIM"],
  grid: ["UNKNOWN_TOKEN", "MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL", "NOT_YOUR_GRID", "GRID_CLOSED", "NOTHING_TO_COLLECT"],
  "ladder-strategy": [
    "UNKNOWN_TOKEN", "NOT_LISTED", "MARKET_NOT_OPEN", "WRONG_SIDE", "NO_REFERENCE", "FIRST_TOO_SMALL", "FOLLOW_UP_TOO_SMALL", "NO_TRIP_HEADROOM",
    "NOT_YOUR_LADDER", "LADDER_CLOSED", "NOTHING_TO_COLLECT",
    "ACCOUNTS_DISABLED", "NO_AGENT_ACCOUNT", "ACCOUNT_FLOOR", "ACCOUNT_CEILING", "ACCOUNT_BUDGET", "ACCOUNT_FEE_CAP", "ACCOUNT_SPREAD",
  ],
  swap: ["UNKNOWN_TOKEN", "NOT_A_TOKEN", "SAME_TOKEN", "NATIVE_ETH_IN", "SWAP_NO_ROUTE", "SWAP_PAUSED", "SWAP_CONTRACTS_CHANGED", "SWAP_UNAVAILABLE"],
  "basket-buy": [...BASKET_TRADE_CODES],
  "basket-sell": [...BASKET_TRADE_CODES, "NOTHING_TO_SELL", "TOKEN_SHORTFALL", "SELL_REFUSED"],
  "basket-make": [
    "PRICE_IMPACT_TOO_HIGH", "UNKNOWN_TOKEN", "NATIVE_ETH_TOKEN", "NATIVE_ETH_IN", "BAD_DEPOSIT_TOKEN", "NOT_ON_TRADE_LIST", "DUPLICATE_TOKEN", "TOKEN_COUNT",
    "WEIGHT_TOO_SMALL", "WEIGHTS_SUM", "NO_ANCHOR", "MAKE_FEE", "BAD_NAME", "BAD_SYMBOL", "RESERVED_SYMBOL", "NAME_NOT_ALLOWED", "NAME_IS_TOKEN",
    "SYMBOL_NOT_ALLOWED", "SYMBOL_IS_TOKEN", "SYMBOL_TAKEN", "DEPOSIT_TOO_SMALL", "AMOUNT_TOO_SMALL", "TOKEN_PAUSED", "TOKEN_FROZEN",
    "BASKET_NO_ROUTE", "LEG_MINIMUM_TOO_LOW", "ROUTE_TOO_LARGE", "MAKE_REFUSED", "MAKER_NOT_DEPLOYED", "TRADE_LIST_LOADING", "ZAP_UNAVAILABLE", "AGGREGATOR_CHANGED",
  ],
};

function prepareRoute(kind: PrepareKind) {
  return createRoute({
    method: "post",
    path: `/prepare/${kind}`,
    tags: ["Prepare"],
    summary: `Prepare ${kind}`,
    description: `${prepareBodies[kind].description ?? ""}\n\nThe whole bundle is simulated before answering (a revert is 422 SIMULATION_FAILED with the decoded reason), stored as a SignRequest for 10 minutes and filed for the owner's report card. An owner short of funds is no refusal: the answer is 200 with the bundle and \`issues\` (0x Swap API v2's shape, amounts as decimal strings in base units): \`issues.balance\` {token, actual, expected} when the owner holds less than the bundle spends (fund the owner, then send; the bundle was simulated as if funded), \`issues.allowance\` {spender, actual} when the allowance is below what the bundle approves (informational: the bundle's approve sets it), \`issues.simulationIncomplete\` true when the shortfall kept the bundle from being simulated in full.`,
    request: { body: { content: { "application/json": { schema: prepareBodies[kind] } }, required: true } },
    responses: {
      200: okResponse(PrepareResult, "The unsigned bundle, its sign link and walletSendCalls"),
      ...errorResponses(...PREPARE_CODES, ...codesOf[kind]),
    },
  });
}

export const prepareRoutes = (deps: AppDeps) => {
  const router = createRouter<AppEnv>();
  for (const kind of prepareKinds) {
    router.openapi(prepareRoute(kind) as ReturnType<typeof prepareRoute>, async (c) => {
      const valid = (c.req as unknown as { valid(target: "json"): PrepareBodies[typeof kind] }).valid("json");
      // Extra fields are allowed (the spec's rule) but only checked, never carried: a receiver or
      // recipient among them is refused here, then the job or pipeline gets the declared fields only.
      checkReceivers(valid, valid.owner);
      const body = knownFields(prepareBodies[kind], valid);
      if (deps.jobs) return ok(c, await prepareThroughJob(deps.jobs, kind, body));
      if (!deps.client) throw new ApiError("UNAVAILABLE", "The chain RPC is not configured");
      const ctx = { db: deps.db, reads: deps.reads, deployments: deps.deployments, client: deps.client, now: deps.now, baseUrl: deps.baseUrl ?? new URL(c.req.url).origin, logger: deps.logger };
      return ok(c, await runPrepare(ctx, kind, body));
    });
  }
  return router;
};
