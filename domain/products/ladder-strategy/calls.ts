// The ladder strategy's calls, from the wallet or carried by the owner's agent account: what each pulls
// from the caller and how the sign page says it.
import { addr, big, field } from "../../bundles/call.js";
import type { Calls } from "../product.js";

export const ladderStrategyCalls = {
  "ladderStrategyAbi.open": {
    spend: (a) => ({
      amount: (Array.isArray(a[1]) ? a[1] : []).reduce((sum: bigint, leg: unknown) => sum + big(field(leg, "amount")), 0n),
      token: a[2] === true ? addr(a[0]) : "usdg",
    }),
    words: ([token, legs, sellFirst, repeat, oneWay], to, w, n) => {
      const list = Array.isArray(legs) ? legs : [];
      const paidIn = sellFirst === true ? token : n.usdg;
      const total = list.reduce((sum: bigint, leg: unknown) => sum + big(field(leg, "amount")), 0n);
      return {
        action: "Ladder strategy",
        summary: `Open a ladder strategy on ${w.symbolOf(token)} with ${list.length} part${list.length === 1 ? "" : "s"} and ${w.amount(total, paidIn)} in all, on ${w.contract(to)}`,
        details: [
          ...list.map(
            (leg, i) =>
              `Part ${i + 1}: ${w.amount(big(field(leg, "amount")), paidIn)}, buy at ${w.price(big(field(leg, "buyPriceX18")), token)}, sell at ${w.price(big(field(leg, "sellPriceX18")), token)}.`,
          ),
          `${sellFirst === true ? "Sells first" : "Buys first"}; ${repeat === true ? "repeats" : "runs once"}${oneWay === true ? "; one way" : ""}.`,
        ],
      };
    },
  },
  "ladderStrategyAbi.close": {
    words: ([id, mask], to, w) => ({
      action: "Close ladder",
      summary: `Close ladder strategy #${big(id)} on ${w.contract(to)}`,
      details: [
        Number(mask) === 0
          ? "Every part stops; the funds stay there to collect later."
          : `Every part stops, and what it holds on ${sidesOfMask(mask)} is paid out to you now.`,
      ],
    }),
  },
  "ladderStrategyAbi.setRepeat": {
    words: ([id, mask], to, w) => ({
      action: "Set repeat",
      summary: `Make ladder strategy #${big(id)} on ${w.contract(to)} repeat on ${sidesOfMask(mask)}`,
      details: ["A part back on a repeating side trades again; on the other side it finishes."],
    }),
  },
  "ladderStrategyAbi.collect": {
    words: ([id, mask], to, w) => ({
      action: "Collect",
      summary: `Collect what ladder strategy #${big(id)} on ${w.contract(to)} holds for you on ${sidesOfMask(mask)}`,
    }),
  },
  // The owner's agent account sends a ladder-strategy call on the owner's behalf, within the account's limits.
  "agentAccountAbi.ladder": {
    carries: { abi: "ladderStrategyAbi", functions: ["open", "close", "setRepeat", "collect"], said: "a LadderStrategy open, close, setRepeat or collect" },
  },
} satisfies Calls;

/** The sides a ladder-strategy mask names: bit 0 the token side, bit 1 the USDG side. */
function sidesOfMask(mask: unknown): string {
  const m = Number(typeof mask === "number" ? mask : big(mask));
  return m === 3 ? "both sides (token and USDG)" : m === 1 ? "the token side" : m === 2 ? "the USDG side" : "neither side";
}
