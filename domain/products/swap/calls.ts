// The swap router's call: what it pulls from the caller and how the sign page says it.
import { addr, big, field } from "../../bundles/call.js";
import type { Calls } from "../product.js";

export const swapCalls = {
  "swapRouterAbi.swap": {
    spend: (a) => ({ amount: big(field(a[0], "amountIn")), token: addr(field(a[0], "tokenIn")) }),
    words: ([req], to, w) => ({
      action: "Swap",
      summary: `Swap ${w.amount(big(field(req, "amountIn")), field(req, "tokenIn"))} for at least ${w.amount(big(field(req, "minAmountOut")), field(req, "tokenOut"))} through ${w.contract(to)}`,
      details: [`The output goes to ${w.who(field(req, "recipient"))}, after the 0.1% swap fee.`],
    }),
  },
} satisfies Calls;
