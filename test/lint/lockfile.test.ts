// `npm install` on a fresh clone must leave `git status` clean: npm rewrites a lock whose entries are
// not in its own order (localeCompare "en", which puts "lru-cache" after "lru_map"), and
// scripts/lockfile-platforms.ts once sorted them by code point. .ci/run also runs `npm install` and
// fails on any change to the lock.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../adapters/config.js";

describe("package-lock.json", () => {
  it("lists its packages in npm's own order", () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, unknown> };
    const keys = Object.keys(lock.packages);
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b, "en")));
    expect(keys.indexOf("node_modules/lru_map")).toBeLessThan(keys.indexOf("node_modules/lru-cache"));
  });
});
