import { describe, expect, it } from "vitest";
import { FREE_DAYS, runPrice } from "../../domain/run-price.js";

describe("runPrice", () => {
  it("is free up to 30 days, then the price per day past them, in USDG base units", () => {
    expect(FREE_DAYS).toBe(30);
    expect(runPrice(1, 0.01)).toBe(0n);
    expect(runPrice(30, 0.01)).toBe(0n);
    expect(runPrice(31, 0.01)).toBe(10_000n);
    expect(runPrice(60, 0.01)).toBe(300_000n);
    expect(runPrice(90, 0.5)).toBe(30_000_000n);
  });
});
