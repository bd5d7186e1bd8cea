// The grid strategy's calls: what each pulls from the caller and how the sign page says it.
import type { Address } from "viem";
import { big, field } from "../../bundles/call.js";
import type { DescribeNames, Said, Words } from "../../bundles/words.js";
import type { Calls } from "../product.js";

export const gridCalls = {
  "gridStrategyAbi.open": {
    spend: (a) => ({ amount: big(field(a[0], "amountUsdg")), token: "usdg" }),
    words: ([p], to, w, n) => gridOpen(p, to, w, n),
  },
  "gridStrategyAbi.openWithMarket": {
    spend: (a) => ({ amount: big(field(a[0], "amountUsdg")), token: "usdg" }),
    words: ([p, minTokenOut], to, w, n) => {
      const said = gridOpen(p, to, w, n);
      return {
        ...said,
        details: [
          ...(said.details ?? []),
          `It first buys ${w.symbolOf(field(p, "token"))} at the market price: at least ${w.amount(big(minTokenOut), field(p, "token"))}.`,
        ],
      };
    },
  },
  "gridStrategyAbi.close": {
    words: ([id], to, w) => ({
      action: "Close grid",
      summary: `Close grid #${big(id)} on ${w.contract(to)}`,
      details: ["What it holds comes back to you."],
    }),
  },
  "gridStrategyAbi.setRepeat": {
    words: ([id, repeat], to, w) => ({
      action: "Set repeat",
      summary: `${repeat === true ? "Turn on" : "Turn off"} repeating for grid #${big(id)} on ${w.contract(to)}`,
    }),
  },
  "gridStrategyAbi.collect": {
    words: ([id], to, w) => ({ action: "Collect", summary: `Collect the proceeds of grid #${big(id)} on ${w.contract(to)}` }),
  },
} satisfies Calls;

function gridOpen(p: unknown, to: Address, w: Words, n: DescribeNames): Said {
  const token = field(p, "token");
  return {
    action: "Grid",
    summary: `Open a grid on ${w.symbolOf(token)} with ${w.amount(big(field(p, "amountUsdg")), n.usdg)} on ${w.contract(to)}: buy at ${w.price(big(field(p, "buyPriceX18")), token)}, sell at ${w.price(big(field(p, "sellPriceX18")), token)}`,
    details: [field(p, "repeat") === true ? "It repeats: after each sell it buys again at the buy line." : "It runs once: one buy, then one sell."],
  };
}
