// Limit orders: a limit or market order, a ladder of orders, and an order's cancel, claims and realize, all on
// the limit-order hook. The builders are ./limit-order.ts, ./ladder.ts and ./order-action.ts; the calls' words
// are ./calls.ts.
import { limitOrderHookAbi } from "../../../abis/index.js";
import { lowerHex, notGraded, type GradingRule } from "../../grading/plan.js";
import { approve, fn, spender, type AllowRule, type PolicyProducts } from "../../policies/rule.js";
import { prepareKind, type Product } from "../product.js";
import { limitOrderCalls } from "./calls.js";

export * from "./limit-order.js";
export * from "./ladder.js";
export * from "./order-action.js";

const orderKind = prepareKind({ refusals: ["UNKNOWN_TOKEN", "MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL"], reverts: ["MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL"] });

/** Orders: graded a day after the last fill, by the orders the filing's own calls place. */
const orders: GradingRule = ({ kind, acting, fn, args }) => ({
  rule: "order",
  action: kind === "ladder" ? `ladder of ${acting.length} orders` : fn === "createMarketOrder" ? "market order" : "limit order",
  side: args[1] === true ? "sell" : "buy",
  token: lowerHex(args[0]),
  orders: acting.length,
  // Every acting step is a create (token, sellToken, amountIn, ...): the orders the filing's own calls place.
  placed: acting.flatMap((s) => {
    const [t, sell, amountIn] = (s.call?.args ?? []) as unknown[];
    return typeof amountIn === "bigint" ? [{ token: lowerHex(t), sellToken: sell === true, amountIn }] : [];
  }),
});

export const limitOrders = {
  name: "limit orders",
  contracts: [{ key: "limitOrderHook", name: "the limit-order hook", abi: "limitOrderHookAbi" }],
  kinds: {
    "limit-order": orderKind,
    ladder: orderKind,
    "order-action": prepareKind({
      refusals: ["NOT_YOUR_ORDER", "ORDER_CLOSED", "NOTHING_FILLED", "NOTHING_TO_CLAIM"],
      reverts: ["ORDER_CLOSED", "NOTHING_FILLED", "NOTHING_TO_CLAIM"],
    }),
  },
  bundles: {
    "limit-order": { title: "Limit order", grade: orders },
    ladder: { title: "Ladder of limit orders", grade: orders },
    "order-action": { title: "Limit-order action", grade: ({ fn }) => notGraded("order-action", `order ${fn}`) },
  },
  calls: limitOrderCalls,
  policy: {
    approvals: ({ hook }) =>
      hook
        ? [
            {
              name: "token-approve-limit-order-hook",
              description: "Token approve to the limit-order hook",
              to: null,
              functions: [approve],
              words: [spender([hook])],
              notes: ["Any token may be approved, only to the hook."],
            },
          ]
        : [],
    rules: limitOrderRules,
  },
} satisfies Product;

function limitOrderRules({ hook }: PolicyProducts): AllowRule[] {
  if (!hook) return [];
  return [
    {
      name: "limit-order-create",
      description: "Limit-order create (limit and market orders); the order belongs to the caller",
      to: [hook],
      functions: [fn(limitOrderHookAbi, "create"), fn(limitOrderHookAbi, "createMarketOrder")],
      words: [],
      notes: ["The hook records the sender as the order's owner and pays only it."],
    },
    { name: "limit-order-cancel", description: "Limit-order cancel", to: [hook], functions: [fn(limitOrderHookAbi, "cancel")], words: [], notes: [] },
    {
      name: "limit-order-claim",
      description: "Limit-order claim",
      to: [hook],
      functions: [fn(limitOrderHookAbi, "claim0"), fn(limitOrderHookAbi, "claim1"), fn(limitOrderHookAbi, "claimBoth")],
      words: [],
      notes: [],
    },
    { name: "limit-order-realize", description: "Limit-order realize", to: [hook], functions: [fn(limitOrderHookAbi, "realize")], words: [], notes: [] },
  ];
}
