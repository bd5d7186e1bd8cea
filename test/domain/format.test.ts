// The pairs an answer gives for an amount and a price (domain/format.ts): the display figure beside the exact one.
import { describe, expect, it } from "vitest";
import { formatUnits } from "viem";
import { amountPair, priceFloat, pricePair } from "../../domain/format.js";

describe("answer pairs", () => {
  it("a price: USD as a number beside the exact priceX18, from a bigint or a numeric string", () => {
    expect(pricePair("buyPrice", 3_140_700_000_000_000_000_000n)).toEqual({ buyPrice: 3140.7, buyPriceX18: "3140700000000000000000" });
    expect(pricePair("sellPrice", "1500000000000000000")).toEqual({ sellPrice: 1.5, sellPriceX18: "1500000000000000000" });
    expect(Object.keys({ ...pricePair("buyPrice", 1n), ...pricePair("sellPrice", 2n) })).toEqual(["buyPrice", "buyPriceX18", "sellPrice", "sellPriceX18"]);
  });

  it("an amount: decimal units beside base units", () => {
    expect(amountPair("fees", 1_500_000n, 6)).toEqual({ fees: "1.5", feesUnits: "1500000" });
  });
});

describe("priceFloat (candle prices in simulations)", () => {
  it("is priceUsd within a unit in the last place", () => {
    for (const x of [1n, 10n ** 18n, 3_140_700_000_000_000_000_000n, 123_456_789_012_345_678_901_234n, 7n * 10n ** 12n]) {
      const exact = Number(formatUnits(x, 18));
      expect(Math.abs(priceFloat(x) - exact)).toBeLessThanOrEqual(Number.EPSILON * Math.abs(exact));
    }
  });
});
