// The prepare kinds, one row each: the body of POST /v1/agent/prepare/{kind}, the refusals its route
// documents and the simulation reverts the pipeline answers as those refusals. The route, its OpenAPI entry
// (hence the MCP tool), the typed client and the pipeline read this; the resolvers are in usecases/prepare/resolvers.ts.
import type { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../domain/errors.js";
import {
  BasketBuyBody,
  BasketMakeBody,
  BasketSellBody,
  GridBody,
  LadderBody,
  LadderStrategyBody,
  LimitOrderBody,
  OrderActionBody,
  SwapBody,
  VaultCancelDepositBody,
  VaultCancelWithdrawBody,
  VaultDepositBody,
  VaultWithdrawBody,
} from "./prepare.js";

/** Refusals every prepare route may answer, whatever its kind. */
export const PREPARE_REFUSALS: ErrorCode[] = ["RECEIVER_NOT_OWNER", "SIMULATION_FAILED", "NOT_FOUND", "BUSY", "NOT_DEPLOYED"];

/**
 * A token's own refusals of a transfer (paused, or a side frozen): any kind's bundle moves tokens, so the
 * pipeline answers these reverts for every kind. Documented only where the resolver refuses them too (the basket kinds).
 */
export const TRANSFER_REVERTS: ErrorCode[] = ["TOKEN_FROZEN", "TOKEN_PAUSED"];

/** basket-buy's refusals (basket-sell answers them too, where they apply). */
const BASKET_TRADE_REFUSALS = [
  "UNKNOWN_BASKET",
  "BAD_TOKEN",
  "NATIVE_ETH_IN",
  "BASKET_SELL_ONLY",
  "BASKET_PAUSED",
  "TOKEN_PAUSED",
  "TOKEN_FROZEN",
  "AMOUNT_TOO_SMALL",
  "BASKET_NO_ROUTE",
  "PRICE_IMPACT_TOO_HIGH",
  "LEG_MINIMUM_TOO_LOW",
  "ROUTE_TOO_LARGE",
  "ZAP_UNAVAILABLE",
  "AGGREGATOR_CHANGED",
] as const satisfies readonly ErrorCode[];
const BASKET_TRADE_REVERTS = ["BASKET_SELL_ONLY", "BASKET_PAUSED", "TOKEN_PAUSED", "TOKEN_FROZEN", "AMOUNT_TOO_SMALL"] as const satisfies readonly ErrorCode[];

/**
 * One kind's row. `reverts`: a simulation that reverts with one of these codes (the projection lagged behind
 * the chain) is answered with that refusal, not 422 SIMULATION_FAILED; they must be among `refusals` (checked
 * by the compiler), so the document names every code a route answers.
 */
function kind<B extends z.ZodType, R extends ErrorCode>(row: { body: B; refusals: readonly R[]; reverts: readonly NoInfer<R>[] }) {
  return row;
}

/** ladder-strategy open: what the service checks before and the ladder contract checks again (a refusal either way). */
const ladderOpenChecks = [
  "NOT_LISTED",
  "MARKET_NOT_OPEN",
  "WRONG_SIDE",
  "NO_REFERENCE",
  "FIRST_TOO_SMALL",
  "FOLLOW_UP_TOO_SMALL",
  "NO_TRIP_HEADROOM",
] as const satisfies readonly ErrorCode[];

export const prepareKindRegistry = {
  "vault-deposit": kind({
    body: VaultDepositBody,
    refusals: ["NOT_AGENT_VAULT", "DEPOSITS_CLOSED", "DEPOSITS_PAUSED", "VAULT_FULL", "CAPACITY", "AMOUNT_TOO_SMALL", "AGGREGATOR_CHANGED", "SWAP_NO_ROUTE"],
    reverts: ["DEPOSITS_CLOSED", "DEPOSITS_PAUSED", "VAULT_FULL", "CAPACITY", "AMOUNT_TOO_SMALL"],
  }),
  "vault-cancel-deposit": kind({ body: VaultCancelDepositBody, refusals: ["NOT_AGENT_VAULT", "NOT_YOUR_REQUEST", "REQUEST_NOT_PENDING"], reverts: [] }),
  "vault-withdraw": kind({
    body: VaultWithdrawBody,
    refusals: ["NOT_AGENT_VAULT", "NOTHING_TO_WITHDRAW", "BELOW_QUEUE_MINIMUM", "AMOUNT_TOO_SMALL", "AGGREGATOR_CHANGED", "SWAP_NO_ROUTE"],
    reverts: ["BELOW_QUEUE_MINIMUM", "AMOUNT_TOO_SMALL"],
  }),
  "vault-cancel-withdraw": kind({ body: VaultCancelWithdrawBody, refusals: ["NOT_AGENT_VAULT", "NOT_YOUR_REQUEST", "REQUEST_NOT_PENDING"], reverts: [] }),
  "limit-order": kind({
    body: LimitOrderBody,
    refusals: ["UNKNOWN_TOKEN", "MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL"],
    reverts: ["MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL"],
  }),
  ladder: kind({ body: LadderBody, refusals: ["UNKNOWN_TOKEN", "MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL"], reverts: ["MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL"] }),
  "order-action": kind({
    body: OrderActionBody,
    refusals: ["NOT_YOUR_ORDER", "ORDER_CLOSED", "NOTHING_FILLED", "NOTHING_TO_CLAIM"],
    reverts: ["ORDER_CLOSED", "NOTHING_FILLED", "NOTHING_TO_CLAIM"],
  }),
  grid: kind({
    body: GridBody,
    refusals: ["UNKNOWN_TOKEN", "MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL", "NOT_YOUR_GRID", "GRID_CLOSED", "NOTHING_TO_COLLECT"],
    reverts: ["MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL", "GRID_CLOSED", "NOTHING_TO_COLLECT"],
  }),
  "ladder-strategy": kind({
    body: LadderStrategyBody,
    refusals: [
      "UNKNOWN_TOKEN",
      ...ladderOpenChecks,
      "NOT_YOUR_LADDER",
      "LADDER_CLOSED",
      "NOTHING_TO_COLLECT",
      "ACCOUNTS_DISABLED",
      "NO_AGENT_ACCOUNT",
      "ACCOUNT_FLOOR",
      "ACCOUNT_CEILING",
      "ACCOUNT_BUDGET",
      "ACCOUNT_FEE_CAP",
      "ACCOUNT_SPREAD",
    ],
    reverts: [...ladderOpenChecks, "LADDER_CLOSED", "NOTHING_TO_COLLECT"],
  }),
  swap: kind({
    body: SwapBody,
    refusals: ["UNKNOWN_TOKEN", "NOT_A_TOKEN", "SAME_TOKEN", "NATIVE_ETH_IN", "SWAP_NO_ROUTE", "SWAP_PAUSED", "SWAP_CONTRACTS_CHANGED", "SWAP_UNAVAILABLE"],
    reverts: ["SWAP_PAUSED"],
  }),
  "basket-buy": kind({ body: BasketBuyBody, refusals: [...BASKET_TRADE_REFUSALS], reverts: BASKET_TRADE_REVERTS }),
  "basket-sell": kind({
    body: BasketSellBody,
    refusals: [...BASKET_TRADE_REFUSALS, "NOTHING_TO_SELL", "TOKEN_SHORTFALL", "SELL_REFUSED"],
    reverts: BASKET_TRADE_REVERTS,
  }),
  "basket-make": kind({
    body: BasketMakeBody,
    refusals: [
      "PRICE_IMPACT_TOO_HIGH",
      "UNKNOWN_TOKEN",
      "NATIVE_ETH_TOKEN",
      "NATIVE_ETH_IN",
      "BAD_DEPOSIT_TOKEN",
      "NOT_ON_TRADE_LIST",
      "DUPLICATE_TOKEN",
      "TOKEN_COUNT",
      "WEIGHT_TOO_SMALL",
      "WEIGHTS_SUM",
      "NO_ANCHOR",
      "MAKE_FEE",
      "BAD_NAME",
      "BAD_SYMBOL",
      "RESERVED_SYMBOL",
      "NAME_NOT_ALLOWED",
      "NAME_IS_TOKEN",
      "SYMBOL_NOT_ALLOWED",
      "SYMBOL_IS_TOKEN",
      "SYMBOL_TAKEN",
      "DEPOSIT_TOO_SMALL",
      "AMOUNT_TOO_SMALL",
      "TOKEN_PAUSED",
      "TOKEN_FROZEN",
      "BASKET_NO_ROUTE",
      "LEG_MINIMUM_TOO_LOW",
      "ROUTE_TOO_LARGE",
      "MAKE_REFUSED",
      "MAKER_NOT_DEPLOYED",
      "TRADE_LIST_LOADING",
      "ZAP_UNAVAILABLE",
      "AGGREGATOR_CHANGED",
    ],
    reverts: ["AMOUNT_TOO_SMALL", "TOKEN_PAUSED", "TOKEN_FROZEN"],
  }),
};

export type PrepareKind = keyof typeof prepareKindRegistry;

/** The kinds in the registry's order (the document's order of the prepare routes). */
export const prepareKinds = Object.keys(prepareKindRegistry) as PrepareKind[];
