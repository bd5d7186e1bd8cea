// The error catalog's refusal details are the spec's Error.details: its field names only, a `minimum` only
// ever an amount in whole base units of its `unit`, prices as numbers (domain/errors.ts detailsProblems).
// The catalog walk reads every code's `when`, which names the details the code carries.
import { describe, expect, it } from "vitest";
import { detailsProblems, errorCatalog, errorCodes, rateLimitedUntil, SPEC_DETAIL_FIELDS } from "../../domain/errors.js";

/** The detail fields a catalog entry says it carries: "details {a, b or c}" and "details.x". */
function namedDetails(when: string): string[] {
  const names: string[] = [];
  for (const m of when.matchAll(/details \{([^}]*)\}/g)) names.push(...m[1]!.split(/,|\bor\b/).map((n) => n.trim()));
  for (const m of when.matchAll(/details\.(\w+)/g)) names.push(m[1]!);
  return names.filter(Boolean);
}

describe("refusal details in the spec's fields and units", () => {
  it("every catalog code that carries details names only the spec's fields; a minimum always comes with its unit", () => {
    const carrying = errorCodes.filter((code) => namedDetails(errorCatalog[code].when).length > 0);
    expect(carrying.length).toBeGreaterThan(15);
    for (const code of carrying) {
      const names = namedDetails(errorCatalog[code].when);
      for (const name of names) expect(SPEC_DETAIL_FIELDS as readonly string[], `${code}: ${name}`).toContain(name);
      if (names.includes("minimum")) expect(names, code).toContain("unit");
    }
  });

  it("finds what an agent would misread: a price labelled as a USDG amount, a field the spec has not, a minimum without its unit", () => {
    // What the ladder strategy's WRONG_SIDE and NO_TRIP_HEADROOM answered before: 18-decimal prices as USDG.
    expect(detailsProblems("WRONG_SIDE", { part: 1, maximum: "3140748709541356009306", unit: "USDG" })).toEqual([
      "WRONG_SIDE: details.maximum is not a field of the spec's Error.details",
    ]);
    expect(detailsProblems("NO_TRIP_HEADROOM", { part: 1, minimum: "3018000000000000000001", unit: "USDG" })[0]).toMatch(/out of scale for USDG/);
    expect(detailsProblems("CAPACITY", { maximum: "5", unit: "USDG" })).toHaveLength(1);
    expect(detailsProblems("NOTHING_TO_WITHDRAW", { minimum: "5" })).toEqual(["NOTHING_TO_WITHDRAW: details.minimum has no unit"]);
    expect(detailsProblems("AMOUNT_TOO_SMALL", { minimum: "1.5", unit: "token" })[0]).toMatch(/not whole base units/);
    expect(detailsProblems("WRONG_SIDE", { part: 0, priceUsd: Number.NaN })).toHaveLength(2);
    expect(detailsProblems("INVALID_REQUEST", { field: "owner", issues: [] })).toEqual([]);
    expect(detailsProblems("RECEIVER_NOT_OWNER", { field: "legs[0].recipient" })).toEqual([]);
    expect(detailsProblems("NOT_FOUND", { field: "owner" })).toHaveLength(1);
  });

  it("lets the spec's shapes pass", () => {
    expect(detailsProblems("FIRST_TOO_SMALL", { part: 1, minimum: "50000000", unit: "USDG" })).toEqual([]);
    expect(detailsProblems("FIRST_TOO_SMALL", { part: 1, minimum: (50n * 10n ** 18n).toString(), unit: "token" })).toEqual([]);
    expect(detailsProblems("WRONG_SIDE", { part: 2, priceUsd: 3140.7, limitUsd: 3200 })).toEqual([]);
    expect(detailsProblems("PRICE_IMPACT_TOO_HIGH", { token: "0xabc", priceUsd: 1.05, limitUsd: 1.03 })).toEqual([]);
    expect(detailsProblems("AMOUNT_TOO_SMALL", undefined)).toEqual([]);
  });
});

describe("rateLimitedUntil (a client past its bounded share)", () => {
  const now = new Date("2026-11-27T00:00:00Z");
  it("answers RATE_LIMITED with the wait in whole seconds until the share frees, at least 1", () => {
    const e = rateLimitedUntil(now, new Date(now.getTime() + 2_500), (wait) => `next in ${wait} s`);
    expect([e.code, e.retryAfterSeconds, e.message]).toEqual(["RATE_LIMITED", 3, "next in 3 s"]);
    // Already free (a clock step) or unknown: retry in 1 s, never 0 or negative.
    expect(rateLimitedUntil(now, new Date(now.getTime() - 10_000), String).retryAfterSeconds).toBe(1);
    expect(rateLimitedUntil(now, null, String).retryAfterSeconds).toBe(1);
  });
});
