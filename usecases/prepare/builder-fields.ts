// Where each builder parameter (domain/bundles) comes from in its prepare kind's body, so that a builder's
// refusal names the request's own field (`legs[1].buyPrice`, not `buyPriceX18`; `mode`, not `redeemQueue`).
// Keys are the builder's parameter paths with `[]` for an index; values are:
// - a body field path (its `[]` take the builder path's indices, in order);
// - `{field, message}`: a parameter the request decides only through another field (a vault without a
//   redeem queue refuses mode queue), answered with that field and these words;
// - null: a parameter the service supplies (a contract, an aggregator route, a deadline, a minimum it
//   computed). A builder's INVALID_REQUEST on one is the service's fault, never the request's: 500 INTERNAL.
// test/usecases/prepare/builder-fields.test.ts walks every builder refusal and checks each against the body schema.
import type { PrepareKind } from "../../contract/prepare-kinds.js";

type BuilderField = string | { field: string; message: string } | null;

const service = null;

export const builderFields: { readonly [K in PrepareKind]: Readonly<Record<string, BuilderField>> } = {
  "vault-deposit": {
    owner: "owner",
    vault: "vault",
    family: service,
    assets: "amount",
    minShares: service,
    usdg: service,
    router: service,
    depositQueue: service,
    aggregator: service,
    swapData: service,
  },
  "vault-cancel-deposit": { owner: "owner", vault: "vault", family: service, id: "id", depositQueue: service },
  "vault-withdraw": {
    owner: "owner",
    vault: "vault",
    family: service,
    mode: "mode",
    shares: "shares",
    redeemQueue: { field: "mode", message: "queue is not offered by this vault: it has no redeem queue (use mode usdg or in-kind)" },
    minUsdgOut: service,
    minTokenOut: service,
    minAssetsOut: service,
    route: service,
    withdrawalQueue: service,
    router: service,
    aggregator: service,
  },
  "vault-cancel-withdraw": {
    owner: "owner",
    vault: "vault",
    family: service,
    id: "id",
    redeemQueue: { field: "vault", message: "this vault has no redeem queue, so no queued withdrawal to cancel" },
    withdrawalQueue: service,
  },
  "limit-order": {
    owner: "owner",
    token: "token",
    sellToken: "side",
    amountIn: "amount",
    priceX18: "price",
    market: "type",
    minAmountOut: service,
    hook: service,
    usdg: service,
  },
  ladder: {
    owner: "owner",
    token: "token",
    sellToken: "side",
    orders: "orders",
    "orders[].amountIn": "orders[].amount",
    "orders[].priceX18": "orders[].price",
    hook: service,
    usdg: service,
  },
  "order-action": { owner: "owner", id: "id", action: "action", hook: service },
  grid: {
    owner: "owner",
    action: "action",
    token: "token",
    buyPriceX18: "buyPrice",
    sellPriceX18: "sellPrice",
    amountUsdg: "amountUsdg",
    repeat: "repeat",
    id: "id",
    minTokenOut: service,
    strategy: service,
    usdg: service,
  },
  "ladder-strategy": {
    owner: "owner",
    action: "action",
    via: "via",
    account: "account",
    token: "token",
    sellFirst: "sellFirst",
    repeat: "repeat",
    oneWay: "oneWay",
    legs: "legs",
    "legs[].buyPriceX18": "legs[].buyPrice",
    "legs[].sellPriceX18": "legs[].sellPrice",
    "legs[].amount": "legs[].amount",
    id: "id",
    mask: "mask",
    ladder: service,
    usdg: service,
  },
  swap: {
    owner: "owner",
    tokenIn: "tokenIn",
    tokenOut: "tokenOut",
    amountIn: "amount",
    minAmountOut: service,
    route: service,
    "route.to": service,
    "route.data": service,
    router: service,
  },
  "basket-buy": {
    owner: "owner",
    pool: "basket",
    tokenIn: "payWith",
    amountIn: "amount",
    legs: service,
    "legs[].tokenIn": service,
    "legs[].tokenOut": service,
    "legs[].amountIn": service,
    "legs[].data": service,
    minBptOut: service,
    deadline: service,
    zap: service,
  },
  "basket-sell": {
    owner: "owner",
    pool: "basket",
    bptIn: "amount",
    tokenOut: "receive",
    legs: service,
    "legs[].tokenIn": service,
    "legs[].tokenOut": service,
    "legs[].amountIn": service,
    "legs[].data": service,
    minOut: service,
    deadline: service,
    zap: service,
  },
  "basket-make": {
    owner: "owner",
    tokenIn: "payWith",
    amountIn: "amount",
    basket: "tokens",
    "basket.name": "name",
    "basket.symbol": "symbol",
    // The builder holds the tokens sorted by address: its index is not the request's.
    "basket.tokens": "tokens",
    "basket.tokens[]": "tokens",
    "basket.normalizedWeights": "tokens",
    "basket.normalizedWeights[]": "tokens",
    "basket.swapFeePercentage": "swapFeePct",
    "basket.salt": service,
    legs: service,
    "legs[].tokenIn": service,
    "legs[].tokenOut": service,
    "legs[].amountIn": service,
    "legs[].data": service,
    minBptOut: service,
    deadline: service,
    maker: service,
  },
};

/** `legs[2].amount` → `legs[].amount`. */
export const fieldPattern = (path: string): string => path.replace(/\[\d+\]/g, "[]");

type RequestField = { field: string; message?: string } | null;

/**
 * The request's field for a builder's parameter path, with the path's indices; null for a parameter the
 * service supplies; undefined when the kind's table does not name it.
 */
export function requestField(kind: PrepareKind, path: string): RequestField | undefined {
  const found = builderFields[kind][fieldPattern(path)];
  if (found === undefined) return undefined;
  if (found === null) return null;
  const indices = [...path.matchAll(/\[(\d+)\]/g)].map((m) => m[1]);
  const fill = (target: string) => target.replace(/\[\]/g, () => `[${indices.shift() ?? 0}]`);
  return typeof found === "string" ? { field: fill(found) } : { field: fill(found.field), message: found.message };
}
