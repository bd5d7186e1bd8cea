// The pairs an answer gives for an amount and a price (domain/format.ts): the display figure beside the exact one.
import { describe, expect, it, vi } from "vitest";
import { formatUnits, getAddress } from "viem";
import { amountPair, checksum, checksumMemo, priceFloat, pricePair, units } from "../../domain/format.js";

// viem's getAddress, counted: a remembered checksum must not compute it again.
vi.mock("viem", async (original) => {
  const viem = await original<typeof import("viem")>();
  return { ...viem, getAddress: vi.fn(viem.getAddress) };
});

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

  it("stays right past the number it remembers (its halves turn over, answers do not change)", () => {
    const remembered = checksumMemo(1_000);
    const addresses = Array.from({ length: 2_500 }, (_, i) => `0x${i.toString(16).padStart(40, "0")}`);
    for (const a of addresses) remembered(a);
    for (const a of [addresses[0]!, addresses[1_234]!, addresses[2_499]!]) expect(remembered(a)).toBe(getAddress(a));
  });

  it("keeps an address asked for again however many others pass, and forgets one asked for once after `kept` others", () => {
    const remembered = checksumMemo(100);
    const computed = vi.mocked(getAddress);
    const address = (i: number) => `0x${(0xabc000 + i).toString(16).padStart(40, "0")}`;
    const polled = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
    const once = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";
    remembered(polled);
    remembered(once);
    computed.mockClear();
    // 1,000 other addresses, ten times the memory; the polled one is asked for again every 40.
    for (let i = 0; i < 1_000; i++) {
      expect(remembered(address(i))).toBe(getAddress(address(i)));
      if (i % 40 === 0) expect(remembered(polled)).toBe("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    }
    const keccaksOf = (a: string) => computed.mock.calls.filter(([arg]) => arg === a).length;
    expect(keccaksOf(polled)).toBe(0);
    // Each other address: once by the memory, once by the test's own expectation.
    expect(keccaksOf(address(500))).toBe(2);
    expect(remembered(once)).toBe("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512");
    expect(keccaksOf(once)).toBe(1);
    // The newest ones are still held: asked for again, no keccak.
    computed.mockClear();
    remembered(address(999));
    expect(computed).not.toHaveBeenCalled();
  });
});
