import { describe, expect, it } from "vitest";
import { historySteps, nextPrice, seededRandom } from "../../devnet/seed/price-paths.js";

describe("price paths", () => {
  it("are deterministic for a seed", () => {
    const a = seededRandom(7),
      b = seededRandom(7);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });

  it("stay within a plausible band over 90 days", () => {
    const random = seededRandom(1);
    let p = 100;
    for (let h = 0; h < 90 * 24; h++) p = nextPrice(p, { startPrice: 100, hourlyVolatility: 0.01 }, 1, random);
    expect(p).toBeGreaterThan(20);
    expect(p).toBeLessThan(500);
  });

  it("step hourly, then every 10 minutes over the last 7 days", () => {
    const end = 1_800_000_000;
    const steps = historySteps(end - 90 * 86400, end);
    const gaps = steps.slice(1).map((t, i) => t - steps[i]!);
    expect(gaps.every((g) => g === 3600 || g === 600)).toBe(true);
    expect(steps.filter((t) => t >= end - 7 * 86400).length).toBeGreaterThanOrEqual(7 * 144 - 2);
    expect(steps.length).toBeGreaterThan(83 * 24);
    expect(steps.at(-1)!).toBeLessThan(end);
  });
});
