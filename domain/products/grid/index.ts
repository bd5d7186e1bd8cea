// Grid strategy: open (also with a market buy first), close, setRepeat and collect a grid on the grid
// strategy contract. The builder is ./grid.ts; the calls' words are ./calls.ts.
import { gridStrategyAbi } from "../../../abis/index.js";
import { lowerHex, notGraded } from "../../grading/plan.js";
import { fn, type AllowRule, type PolicyProducts } from "../../policies/rule.js";
import { prepareKind, type Product } from "../product.js";
import { gridCalls } from "./calls.js";

export * from "./grid.js";

export const grid = {
  name: "grid",
  contracts: [{ key: "gridStrategy", name: "the grid strategy", abi: "gridStrategyAbi" }],
  kinds: {
    grid: prepareKind({
      refusals: ["UNKNOWN_TOKEN", "MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL", "NOT_YOUR_GRID", "GRID_CLOSED", "NOTHING_TO_COLLECT"],
      reverts: ["MARKET_NOT_OPEN", "AMOUNT_TOO_SMALL", "GRID_CLOSED", "NOTHING_TO_COLLECT"],
    }),
  },
  bundles: {
    grid: {
      title: "Grid strategy",
      grade: ({ fn, args }) => {
        if (fn !== "open" && fn !== "openWithMarket") return notGraded("grid-action", `grid ${fn}`);
        const p = args[0] as { token: string; buyPriceX18: bigint; sellPriceX18: bigint };
        return { rule: "range", action: "grid open", token: lowerHex(p.token), buyX18: p.buyPriceX18, sellX18: p.sellPriceX18 };
      },
    },
  },
  calls: gridCalls,
  policy: { usdgSpenders: ({ grid }) => [grid], rules: gridRules },
} satisfies Product;

function gridRules({ grid }: PolicyProducts): AllowRule[] {
  if (!grid) return [];
  return [
    {
      name: "grid-open",
      description: "Grid open (also with a market buy); the grid belongs to the caller",
      to: [grid],
      functions: [fn(gridStrategyAbi, "open"), fn(gridStrategyAbi, "openWithMarket")],
      words: [],
      notes: ["The strategy records the sender as the grid's owner and pays only it."],
    },
    { name: "grid-close", description: "Grid close", to: [grid], functions: [fn(gridStrategyAbi, "close")], words: [], notes: [] },
    { name: "grid-set-repeat", description: "Grid set repeat", to: [grid], functions: [fn(gridStrategyAbi, "setRepeat")], words: [], notes: [] },
    { name: "grid-collect", description: "Grid collect", to: [grid], functions: [fn(gridStrategyAbi, "collect")], words: [], notes: [] },
  ];
}
