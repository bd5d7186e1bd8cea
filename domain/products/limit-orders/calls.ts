// The limit-order hook's calls (limit and market orders, ladders of orders, claims, cancels and realizes):
// what each pulls from the caller and how the sign page says it.
import { addr, big } from "../../bundles/call.js";
import type { Calls } from "../product.js";

export const limitOrderCalls = {
  "limitOrderHookAbi.create": {
    spend: (a) => ({ amount: big(a[2]), token: a[1] === true ? addr(a[0]) : "usdg" }),
    words: ([token, sellToken, amountIn, priceX18], to, w, n) => ({
      action: "Limit order",
      summary:
        sellToken === true
          ? `Place a limit order on ${w.contract(to)}: sell ${w.amount(big(amountIn), token)} at ${w.price(big(priceX18), token)}`
          : `Place a limit order on ${w.contract(to)}: buy ${w.symbolOf(token)} with ${w.amount(big(amountIn), n.usdg)} at ${w.price(big(priceX18), token)}`,
      details: ["The order is yours: it fills when the market reaches the price, and you claim the proceeds. The hook takes a commission on fills."],
    }),
  },
  "limitOrderHookAbi.createMarketOrder": {
    spend: (a) => ({ amount: big(a[2]), token: a[1] === true ? addr(a[0]) : "usdg" }),
    words: ([token, sellToken, amountIn, minAmountOut], to, w, n) => ({
      action: "Market order",
      summary:
        sellToken === true
          ? `Sell ${w.amount(big(amountIn), token)} now on ${w.contract(to)}, for at least ${w.amount(big(minAmountOut), n.usdg)}`
          : `Buy ${w.symbolOf(token)} with ${w.amount(big(amountIn), n.usdg)} now on ${w.contract(to)}, for at least ${w.amount(big(minAmountOut), token)}`,
      details: ["The order fills at once at the market price, or the transaction fails."],
    }),
  },
  "limitOrderHookAbi.cancel": {
    words: ([id], to, w) => ({
      action: "Cancel order",
      summary: `Cancel limit order #${big(id)} on ${w.contract(to)}`,
      details: ["What is not filled becomes claimable by you."],
    }),
  },
  "limitOrderHookAbi.claim0": {
    words: ([id], to, w) => ({ action: "Claim", summary: `Claim the first token of limit order #${big(id)} on ${w.contract(to)}` }),
  },
  "limitOrderHookAbi.claim1": {
    words: ([id], to, w) => ({ action: "Claim", summary: `Claim the second token of limit order #${big(id)} on ${w.contract(to)}` }),
  },
  "limitOrderHookAbi.claimBoth": {
    words: ([id], to, w) => ({ action: "Claim", summary: `Claim everything limit order #${big(id)} holds for you on ${w.contract(to)}` }),
  },
  "limitOrderHookAbi.realize": {
    words: ([id], to, w) => ({ action: "Realize", summary: `Realize the filled part of limit order #${big(id)} on ${w.contract(to)}` }),
  },
} satisfies Calls;
