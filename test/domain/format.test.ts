// The pairs an answer gives for an amount and a price (domain/format.ts): the display figure beside the exact one.
import { describe, expect, it } from "vitest";
import { formatUnits, getAddress } from "viem";
import { amountPair, checksum, priceFloat, pricePair, units } from "../../domain/format.js";

describe("answer pairs", () => {
  it("a price: USD as a number beside the exact priceX18, from a bigint or a numeric string", () => {
    expect(pricePair("buyPrice", 3_140_700_000_000_000_000_000n)).toEqual({ buyPrice: 3140.7, buyPriceX18: "3140700000000000000000" });
    expect(pricePair("sellPrice", "1500000000000000000")).toEqual({ sellPrice: 1.5, sellPriceX18: "1500000000000000000" });
    expect(Object.keys({ ...pricePair("buyPrice", 1n), ...pricePair("sellPrice", 2n) })).toEqual(["buyPrice", "buyPriceX18", "sellPrice", "sellPriceX18"]);
  });

  it("an amount: decimal units beside base units", () => {
    expect(amountPair("fees", 1_500_000n, 6)).toEqual({ fees: "1.5", feesUnits: "1500000" });
  });

  it("units: viem's formatUnits, zero included (it takes a path of its own)", () => {
    for (const [x, d] of [
      [0n, 18],
      [0n, 0],
      [1n, 18],
      [-1n, 6],
      [10n ** 30n, 12],
      [-(10n ** 6n), 6],
      [120n, 0],
    ] as const) {
      expect(units(x, d)).toBe(formatUnits(x, d));
    }
    expect(units(0n, 18)).toBe("0");
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

describe("checksum (remembered)", () => {
  it("answers viem's checksum for any case, the same again from memory, and refuses what is not an address", () => {
    const lower = "0xcabee62adfb2a4d4172fc2f7536f324fc52c274a";
    expect(checksum(lower)).toBe("0xCABEe62adFB2a4d4172Fc2F7536f324FC52C274a");
    expect(checksum(lower)).toBe(getAddress(lower));
    expect(checksum(lower.toUpperCase().replace("0X", "0x"))).toBe(getAddress(lower));
    expect(() => checksum("0x1234")).toThrow(/invalid/i);
    expect(() => checksum("0x1234")).toThrow(/invalid/i);
  });

  it("stays right past the number it remembers (the memory starts again, answers do not change)", () => {
    const addresses = Array.from({ length: 25_000 }, (_, i) => `0x${i.toString(16).padStart(40, "0")}`);
    for (const a of addresses) checksum(a);
    for (const a of [addresses[0]!, addresses[12_345]!, addresses[24_999]!]) expect(checksum(a)).toBe(getAddress(a));
  });
});
