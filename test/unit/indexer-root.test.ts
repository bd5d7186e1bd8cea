// Ponder executes, and hashes into its build id, every file its own glob finds under `<root>/src/`
// except `<root>/src/api/`. With indexer/ as its root (scripts/indexer.ts), that must be exactly the
// indexing functions: never the API's or the workers' code, so that changing those neither loads them
// into the indexer nor makes it refuse its existing index.
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../src/config.js";

// Ponder's own copy of glob, with the pattern and ignore Ponder's build uses.
const { glob } = createRequire(join(repoRoot, "node_modules", "ponder", "package.json"))("glob") as typeof import("glob");
const root = join(repoRoot, "indexer");

describe("the indexer's Ponder root", () => {
  it("gives Ponder exactly the files of src/indexing as indexing code", () => {
    const files = glob.sync(join(root, "src", "**/*.{js,mjs,ts,mts}"), { ignore: join(root, "src", "api", "**/*.{js,mjs,ts,mts}") });
    const seen = files.map((f) => relative(repoRoot, realpathSync(f))).sort();
    const expected = readdirSync(join(repoRoot, "src", "indexing")).filter((f) => /\.(ts|js)$/.test(f)).map((f) => join("src", "indexing", f)).sort();
    expect(expected.length).toBeGreaterThan(5);
    expect(seen).toEqual(expected);
  });

  it("links the schema and the analysts' API to the repository's own", () => {
    expect(readFileSync(join(root, "ponder.schema.ts"), "utf8")).toContain(`export * from "../ponder.schema.js";`);
    expect(realpathSync(join(root, "src", "api", "index.ts"))).toBe(join(repoRoot, "src", "api", "index.ts"));
  });
});
