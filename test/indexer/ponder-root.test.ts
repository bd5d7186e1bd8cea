// Ponder executes, and hashes into its build id, every file its glob finds under `<root>/src/` except
// `<root>/src/api/`. The repository is Ponder's root, so src/ must hold the indexing functions and
// nothing else: never the API's, the workers' or the shared rooms' code.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../adapters/config.js";

// Ponder's own copy of glob, with the pattern and ignore Ponder's build uses (build/index.js).
const { glob } = createRequire(join(repoRoot, "node_modules", "ponder", "package.json"))("glob") as typeof import("glob");

describe("Ponder's root is the repository", () => {
  it("gives Ponder exactly the files of src/ (Ponder's src/api/ aside) as indexing code", () => {
    const files = glob.sync(join(repoRoot, "src", "**/*.{js,mjs,ts,mts}"), { ignore: join(repoRoot, "src", "api", "**/*.{js,mjs,ts,mts}") });
    const seen = files.map((f) => relative(repoRoot, f)).sort();
    const expected = readdirSync(join(repoRoot, "src"), { withFileTypes: true })
      .filter((e) => e.isFile() && /\.ts$/.test(e.name))
      .map((e) => join("src", e.name))
      .sort();
    expect(expected).toContain("src/vaults.ts");
    expect(seen).toEqual(expected);
    // src/ has no folder but Ponder's api/: the shared code lives in its own rooms.
    expect(
      readdirSync(join(repoRoot, "src"), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name),
    ).toEqual(["api"]);
    expect(readdirSync(join(repoRoot, "src", "api"))).toEqual(["index.ts"]);
  });

  it("has no second root: no indexer/ folder, no --root in the indexer's command", () => {
    expect(existsSync(join(repoRoot, "indexer"))).toBe(false);
    expect(readFileSync(join(repoRoot, "scripts", "indexer.ts"), "utf8")).not.toContain("--root");
  });
});
