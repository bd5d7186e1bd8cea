// `npm test` runs the e2e files that start their own stacks beside the ones on the shared stack
// (scripts/test-streams.ts). A file listed as its own must not read the shared stack: without the
// global setup, `inject("stack")` is undefined there.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OWN_STACK } from "../../vitest.config.js";

const e2e = readdirSync("test/e2e")
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `test/e2e/${f}`);

describe("the e2e-own project (vitest.config.ts OWN_STACK)", () => {
  it("lists only e2e files that exist and never inject the shared stack", () => {
    expect(OWN_STACK.filter((f) => !e2e.includes(f))).toEqual([]);
    expect(OWN_STACK.filter((f) => /\binject\(/.test(readFileSync(f, "utf8")))).toEqual([]);
  });
});
