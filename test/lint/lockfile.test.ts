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

  // npm 11 warns on every install about a dependency's install script that package.json's allowScripts
  // does not cover (docs/testing.md). Entries are by name: the lock records no resolved URL, so npm could
  // not verify a pinned version.
  it("has every package with an install script covered by allowScripts, by name", () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> };
    const withScripts = [
      ...new Set(
        Object.entries(lock.packages)
          .filter(([, entry]) => entry.hasInstallScript)
          .map(([path]) => path.replace(/^.*node_modules\//, "")),
      ),
    ];
    expect(withScripts.length).toBeGreaterThan(0);
    // Covered: allowed (true), or denied (false: swagger-ui-dist's @scarf/scarf, whose script only phones home;
    // @foundry-rs/anvil, whose script fetches the binary its platform package already holds, devnet/anvil.ts).
    expect(withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== "boolean")).toEqual([]);
    expect(Object.entries(pkg.allowScripts ?? {}).filter(([, allowed]) => !allowed)).toEqual([
      ["@foundry-rs/anvil", false],
      ["@scarf/scarf", false],
    ]);
    expect(Object.keys(pkg.allowScripts ?? {}).filter((name) => !withScripts.includes(name))).toEqual([]);
  });
});
