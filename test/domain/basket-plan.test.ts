// The basket plan's pure parts: the anchor rule and weights, the liquidity class, the look-back
// simulation (known answers of a weighted pool), and the name and symbol rules.
import { describe, expect, it } from "vitest";
import { composeBasket } from "../../domain/basket-plan/compose.js";
import { liquidityClass, liquidityCostPct } from "../../domain/basket-plan/liquidity.js";
import { simulateLookback } from "../../domain/basket-plan/lookback.js";
import { nameProblem, suggestName, symbolProblem } from "../../domain/basket-plan/names.js";
import { evenWeights, pctToX18, weightProblem, WEIGHT_ONE, x18ToPct } from "../../domain/basket-plan/weights.js";
import { ApiError } from "../../domain/errors.js";

const USDG = "0x00000000000000000000000000000000000000a1";
const WETH = "0x00000000000000000000000000000000000000a2";
const A = "0x00000000000000000000000000000000000000b1";
const B = "0x00000000000000000000000000000000000000b2";
const C = "0x00000000000000000000000000000000000000b3";

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return "none";
};
const pcts = (c: ReturnType<typeof composeBasket>) => c.tokens.map((t) => x18ToPct(t.weight));

describe("composeBasket: the anchor rule and weights", () => {
  it("adds the anchor at 10% when the basket holds neither; the rest share 90% evenly; sums are exact", () => {
    const c = composeBasket({ tokens: [{ address: A }, { address: B }, { address: C }], anchor: USDG, otherAnchor: WETH });
    expect(c.anchorAdded).toBe(true);
    expect(c.tokens.map((t) => t.address)).toEqual([A, B, C, USDG]);
    expect(pcts(c)).toEqual([30, 30, 30, 10]);
    expect(c.tokens.reduce((s, t) => s + t.weight, 0n)).toBe(WEIGHT_ONE);
  });

  it("an anchor already held (the chosen one, else the other) gets 10% and is not added", () => {
    const held = composeBasket({ tokens: [{ address: A }, { address: USDG }], anchor: USDG, otherAnchor: WETH });
    expect(held.anchorAdded).toBe(false);
    expect(pcts(held)).toEqual([90, 10]);
    const other = composeBasket({ tokens: [{ address: WETH }, { address: A }, { address: B }], anchor: USDG, otherAnchor: WETH });
    expect(other.anchorAdded).toBe(false);
    expect(other.anchorIndex).toBe(0);
    expect(pcts(other)).toEqual([10, 45, 45]);
  });

  it("given weights sum to 100; an added anchor takes its 10% from them in proportion", () => {
    const c = composeBasket({
      tokens: [
        { address: A, weightPct: 60 },
        { address: B, weightPct: 40 },
      ],
      anchor: WETH,
      otherAnchor: USDG,
    });
    expect(c.tokens.map((t) => t.address)).toEqual([A, B, WETH]);
    expect(pcts(c)).toEqual([54, 36, 10]);
  });

  it("refuses with the plan's codes", () => {
    expect(codeOf(() => composeBasket({ tokens: [], anchor: USDG }))).toBe("TOKEN_COUNT");
    const nine = Array.from({ length: 9 }, (_, i) => ({ address: `0x${(i + 1).toString(16).padStart(40, "0")}` }));
    expect(codeOf(() => composeBasket({ tokens: nine, anchor: USDG }))).toBe("TOKEN_COUNT");
    // Eight tokens without an anchor: the anchor would make nine.
    expect(codeOf(() => composeBasket({ tokens: nine.slice(0, 8), anchor: USDG }))).toBe("TOKEN_COUNT");
    expect(codeOf(() => composeBasket({ tokens: [{ address: A }, { address: A.toUpperCase().replace("0X", "0x") }], anchor: USDG }))).toBe("DUPLICATE_TOKEN");
    expect(codeOf(() => composeBasket({ tokens: [{ address: A, weightPct: 50 }, { address: USDG }], anchor: USDG }))).toBe("WEIGHTS_PARTIAL");
    expect(
      codeOf(() =>
        composeBasket({
          tokens: [
            { address: A, weightPct: 50 },
            { address: USDG, weightPct: 49 },
          ],
          anchor: USDG,
        }),
      ),
    ).toBe("WEIGHTS_SUM");
    expect(
      codeOf(() =>
        composeBasket({
          tokens: [
            { address: A, weightPct: 99.5 },
            { address: USDG, weightPct: 0.5 },
          ],
          anchor: USDG,
        }),
      ),
    ).toBe("WEIGHT_TOO_SMALL");
  });

  it("even weights sum exactly for any size", () => {
    for (let n = 1; n <= 8; n++) {
      for (const anchor of n === 1 ? [-1] : [-1, 0, n - 1]) expect(evenWeights(n, anchor).reduce((a, b) => a + b, 0n)).toBe(WEIGHT_ONE);
    }
    expect(weightProblem([pctToX18(33.33), pctToX18(33.33), pctToX18(33.34)])).toBeUndefined();
  });
});

describe("liquidity class", () => {
  it("from how much more the 1,000 USDG buy pays per token than the 10 USDG one", () => {
    // Same price per token: deep at 0%.
    expect(liquidityCostPct(1000n, 100_000n)).toBe(0);
    expect(liquidityClass(0)).toBe("deep");
    // The large buy gets 1% fewer tokens per USDG: 1/0.99 - 1 = 1.0101% more per token.
    const cost = liquidityCostPct(1000n, 99_000n)!;
    expect(cost).toBeCloseTo(1.0101, 3);
    expect(liquidityClass(cost)).toBe("fair");
    expect(liquidityClass(0.4999)).toBe("deep");
    expect(liquidityClass(0.5)).toBe("fair");
    expect(liquidityClass(2)).toBe("thin");
    expect(liquidityClass(liquidityCostPct(1000n, 0n))).toBe("no-market");
  });
});

describe("look-back simulation", () => {
  const hours = (n: number) => Array.from({ length: n }, (_, i) => i * 3600);

  it("flat prices: no trades, no fees, no change", () => {
    const r = simulateLookback({ weights: [0.5, 0.5], times: hours(48), prices: hours(48).map(() => [1, 2000]), fee: 0.01, windowSeconds: 86400 });
    expect(r).toMatchObject({ growthPct: 0, worstDropPct: 0, feesPer1kUsd: 0, trades: 0, endValueUsd: 1000 });
    expect(r.windows).toHaveLength(2);
  });

  it("one token doubles in a 50/50 pool: value × sqrt(2) before fees, and the rebalance earns the fee", () => {
    const noFee = simulateLookback({
      weights: [0.5, 0.5],
      times: [0, 3600],
      prices: [
        [1, 100],
        [1, 200],
      ],
      fee: 0,
      windowSeconds: 86400,
    });
    expect(noFee.endValueUsd).toBeCloseTo(1000 * Math.SQRT2, 2);
    expect(noFee.trades).toBe(1);
    const withFee = simulateLookback({
      weights: [0.5, 0.5],
      times: [0, 3600],
      prices: [
        [1, 100],
        [1, 200],
      ],
      fee: 0.01,
      windowSeconds: 86400,
    });
    // The pool buys USDG-side value: balances 500 USDG, 5 tokens → 707.1 USDG, 3.536 tokens; volume 207.1 USD.
    expect(withFee.feesPer1kUsd).toBeCloseTo(((1000 * Math.SQRT2) / 2 - 500) * 0.01, 4);
    expect(withFee.endValueUsd).toBeGreaterThan(noFee.endValueUsd);
  });

  it("a fall then a recovery shows as the worst drop", () => {
    const r = simulateLookback({
      weights: [0.1, 0.9],
      times: [0, 3600, 7200],
      prices: [
        [1, 10],
        [1, 5],
        [1, 10],
      ],
      fee: 0,
      windowSeconds: 86400,
    });
    // 90% in the token: value × 0.5^0.9 at the bottom.
    expect(r.worstDropPct).toBeCloseTo((1 - 0.5 ** 0.9) * 100, 2);
    expect(r.growthPct).toBeCloseTo(0, 6);
  });
});

describe("name and symbol rules", () => {
  const rules = { tokenNames: ["Wrapped Ether", "Chainlink Token"], tokenSymbols: ["WETH", "LINK", "USDG"] };
  it("names", () => {
    expect(nameProblem("Blue Mix", rules)).toBeUndefined();
    expect(nameProblem("", rules)?.code).toBe("BAD_NAME");
    expect(nameProblem("x".repeat(65), rules)?.code).toBe("BAD_NAME");
    expect(nameProblem(" Lead space", rules)?.code).toBe("BAD_NAME");
    expect(nameProblem("Bad\u0007Bell", rules)?.code).toBe("BAD_NAME");
    expect(nameProblem("Official Blue Chips", rules)?.code).toBe("NAME_NOT_ALLOWED");
    expect(nameProblem("wrapped ether", rules)?.code).toBe("NAME_IS_TOKEN");
  });
  it("symbols", () => {
    expect(symbolProblem("BMIX", rules, false)).toBeUndefined();
    expect(symbolProblem("B MIX", rules, false)?.code).toBe("BAD_SYMBOL");
    expect(symbolProblem("x".repeat(21), rules, false)?.code).toBe("BAD_SYMBOL");
    expect(symbolProblem("tsMIX", rules, false)?.code).toBe("RESERVED_SYMBOL");
    expect(symbolProblem("TSmix", rules, false)?.code).toBe("RESERVED_SYMBOL");
    expect(symbolProblem("usd", rules, false)?.code).toBe("SYMBOL_NOT_ALLOWED");
    expect(symbolProblem("link", rules, false)?.code).toBe("SYMBOL_IS_TOKEN");
    expect(symbolProblem("BLUE", rules, true)?.code).toBe("SYMBOL_TAKEN");
  });
  it("suggestions pass the rules", () => {
    const s = suggestName(["tsAAPL", "tsNVDA", "USDG"]);
    expect(symbolProblem(s.symbol, rules, false)).toBeUndefined();
    expect(nameProblem(s.name, rules)).toBeUndefined();
  });
});
