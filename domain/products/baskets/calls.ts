// The basket zap's and maker's calls (buy, sell, make): what each pulls from the caller and how the sign
// page says it.
import { formatUnits } from "viem";
import { addr, big, field } from "../../bundles/call.js";
import { groupDigits } from "../../bundles/words.js";
import type { Calls } from "../product.js";

export const basketCalls = {
  "basketZapAbi.buy": {
    spend: (a) => ({ amount: big(a[2]), token: addr(a[1]) }),
    words: ([pool, tokenIn, amountIn, legs, minBptOut, recipient, deadline], to, w) => ({
      action: "Buy basket",
      summary: `Buy ${w.symbolOf(pool)} with ${w.amount(big(amountIn), tokenIn)} through ${w.contract(to)}`,
      details: [
        `At least ${w.amount(big(minBptOut), pool)}, to ${w.who(recipient)}.`,
        `${Array.isArray(legs) ? legs.length : 0} trades through the swap aggregator; valid until ${deadlineOf(deadline)}.`,
      ],
    }),
  },
  "basketZapAbi.sell": {
    spend: (a) => ({ amount: big(a[1]), token: addr(a[0]) }),
    words: ([pool, bptIn, tokenOut, legs, minOut, recipient, deadline], to, w) => ({
      action: "Sell basket",
      summary: `Sell ${w.amount(big(bptIn), pool)} for at least ${w.amount(big(minOut), tokenOut)} through ${w.contract(to)}`,
      details: [
        `The output goes to ${w.who(recipient)}.`,
        `${Array.isArray(legs) ? legs.length : 0} trades through the swap aggregator; valid until ${deadlineOf(deadline)}.`,
      ],
    }),
  },
  "basketMakerAbi.make": {
    spend: (a) => ({ amount: big(a[2]), token: addr(a[1]) }),
    words: ([basket, tokenIn, amountIn, legs, minBptOut, recipient, deadline], to, w) => {
      const tokens = field(basket, "tokens");
      const weights = field(basket, "normalizedWeights");
      const list = Array.isArray(tokens) ? tokens : [];
      const ws = Array.isArray(weights) ? weights : [];
      return {
        action: "Make basket",
        summary: `Make the basket ${String(field(basket, "name"))} (${String(field(basket, "symbol"))}) with a first deposit of ${w.amount(big(amountIn), tokenIn)}, through ${w.contract(to)}`,
        details: [
          `Holds ${list.map((t, i) => `${w.symbolOf(t)} ${groupDigits(formatUnits(big(ws[i]) * 100n, 18))}%`).join(", ")}. The name, tokens, weights and fee are permanent.`,
          `At least ${groupDigits(formatUnits(big(minBptOut), 18))} basket tokens, to ${w.who(recipient)}.`,
          `${Array.isArray(legs) ? legs.length : 0} trades through the swap aggregator; valid until ${deadlineOf(deadline)}.`,
        ],
      };
    },
  },
} satisfies Calls;

function deadlineOf(deadline: unknown): string {
  const seconds = Number(big(deadline));
  return Number.isFinite(seconds) && seconds > 0 && seconds < 1e11 ? new Date(seconds * 1000).toISOString() : String(deadline);
}
