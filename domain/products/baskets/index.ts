// Baskets: buy and sell basket tokens through the basket zap, and make a new basket with the basket maker,
// each trade routed through the swap aggregator in legs. The builders are ./buy.ts, ./sell.ts and ./make.ts
// (their legs ./legs.ts); the calls' words are ./calls.ts.
import { basketZapAbi } from "../../../abis/index.js";
import type { ErrorCode } from "../../errors.js";
import { notGraded, type GradingRule } from "../../grading/plan.js";
import { approve, fn, spender, wallet, type AllowRule, type PolicyProducts } from "../../policies/rule.js";
import { prepareKind, type Product } from "../product.js";
import { basketCalls } from "./calls.js";

export * from "./buy.js";
export * from "./sell.js";
export * from "./make.js";

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

/** Baskets are not graded. */
const other: GradingRule = ({ kind }) => notGraded("other", kind.replace("-", " "));

export const baskets = {
  name: "baskets",
  contracts: [
    { key: "basketZap", name: "the basket zap", abi: "basketZapAbi" },
    { key: "basketMaker", name: "the basket maker", abi: "basketMakerAbi" },
  ],
  kinds: {
    "basket-buy": prepareKind({ refusals: [...BASKET_TRADE_REFUSALS], reverts: BASKET_TRADE_REVERTS }),
    "basket-sell": prepareKind({ refusals: [...BASKET_TRADE_REFUSALS, "NOTHING_TO_SELL", "TOKEN_SHORTFALL", "SELL_REFUSED"], reverts: BASKET_TRADE_REVERTS }),
    "basket-make": prepareKind({
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
  },
  bundles: {
    "basket-buy": { title: "Basket buy", grade: other },
    "basket-sell": { title: "Basket sell", grade: other },
    "basket-make": { title: "Make a basket", grade: other },
  },
  calls: basketCalls,
  policy: {
    approvals: ({ zap }) =>
      zap
        ? [
            {
              name: "token-approve-basket-zap",
              description: "Token approve to the basket zap",
              to: null,
              functions: [approve],
              words: [spender([zap])],
              notes: ["Any token may be approved, only to the zap."],
            },
          ]
        : [],
    rules: basketRules,
  },
} satisfies Product;

function basketRules({ zap }: PolicyProducts): AllowRule[] {
  if (!zap) return [];
  return [
    {
      name: "basket-buy",
      description: "Basket buy through the zap, basket tokens to the wallet",
      to: [zap],
      functions: [fn(basketZapAbi, "buy")],
      words: [wallet(5, "recipient")],
      notes: ["The deadline and the legs are the zap's to check."],
    },
    {
      name: "basket-sell",
      description: "Basket sell through the zap, paid to the wallet",
      to: [zap],
      functions: [fn(basketZapAbi, "sell")],
      words: [wallet(5, "recipient")],
      notes: [],
    },
  ];
}
