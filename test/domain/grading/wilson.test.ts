// The Wilson lower bound against an independent derivation: the smaller root of
// (p - x)² = z² x (1 - x) / n, and a few known answers.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wilsonLowerBound, Z_90 } from "../../../domain/grading/wilson.js";

function quadraticLower(hits: number, n: number, z: number): number {
  const p = hits / n;
  const a = 1 + (z * z) / n;
  const b = -(2 * p + (z * z) / n);
  const c = p * p;
  return (-b - Math.sqrt(b * b - 4 * a * c)) / (2 * a);
}

describe("wilsonLowerBound", () => {
  it("known answers at z = 1.6449", () => {
    expect(wilsonLowerBound({ hits: 25, misses: 5 })).toBeCloseTo(0.69508, 4);
    expect(wilsonLowerBound({ hits: 0, misses: 30 })).toBe(0);
    expect(wilsonLowerBound({ hits: 30, misses: 0 })).toBeCloseTo(30 / (30 + Z_90 * Z_90), 10);
    expect(wilsonLowerBound({ hits: 0, misses: 0 })).toBe(0);
  });

  it("equals the smaller root of the Wilson quadratic, and sits below the observed rate", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 500 }), (hits, misses) => {
        fc.pre(hits + misses > 0);
        const lower = wilsonLowerBound({ hits, misses });
        expect(lower).toBeCloseTo(Math.max(0, quadraticLower(hits, hits + misses, Z_90)), 9);
        expect(lower).toBeLessThanOrEqual(hits / (hits + misses) + 1e-12);
        expect(lower).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
