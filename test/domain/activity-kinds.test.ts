// The activity kinds are named once: every kind src/ writes is in ACTIVITY_KINDS, and the contract's short list
// names each of them.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ACTIVITY_KINDS, activityKindsInShort } from "../../domain/activity-kinds.js";

const kindsWritten = () =>
  readdirSync("src")
    .filter((f) => f.endsWith(".ts") && f !== "shared-sources.ts")
    .flatMap((f) => [...readFileSync(join("src", f), "utf8").matchAll(/"((?:vault|order|grid|ladder|basket|swap)\.[a-z.]+)"/g)].map((m) => m[1]!));

describe("activity kinds", () => {
  it("lists every kind src/ writes, and src/ writes every kind listed", () => {
    expect(new Set(kindsWritten())).toEqual(new Set(ACTIVITY_KINDS));
  });

  it("names each kind once in the short list", () => {
    const named = activityKindsInShort()
      .split(", ")
      .flatMap((run) => {
        const [first, ...rest] = run.split("|");
        const family = first!.slice(0, first!.lastIndexOf("."));
        return [first!, ...rest.map((name) => `${family}.${name}`)];
      });
    expect(named).toEqual([...ACTIVITY_KINDS]);
  });
});
