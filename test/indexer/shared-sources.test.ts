// Ponder's build id covers the files under src/ but not the modules they import from the shared rooms;
// src/shared-sources.ts carries those modules' hash into it (scripts/build-id.ts). It must be current, and
// it must move when a module the indexer runs changes, and only then.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../adapters/config.js";
import { indexedSharedSources, sharedSourcesFile, sharedSourcesHash } from "../../scripts/build-id.js";

const read = (file: string) => readFileSync(join(repoRoot, file), "utf8");

describe("src/shared-sources.ts", () => {
  it("is current: run `npm run build-id -- --write` after changing a module the indexer runs", () => {
    expect(read("src/shared-sources.ts")).toBe(sharedSourcesFile(repoRoot));
  });

  it("names the shared modules the indexing functions run, and not the API's, the workers' or the file locators", () => {
    const sources = indexedSharedSources(repoRoot);
    expect(sources).toEqual(
      expect.arrayContaining(["domain/activity-position.ts", "domain/price.ts", "adapters/chain/token-list.ts", "config/token-list.json", "abis/index.ts"]),
    );
    for (const file of sources) expect(file).toMatch(/^(domain|abis|config|adapters\/chain\/token-list\.ts)/);
    expect(sources).not.toContain("adapters/config.ts");
  });

  it("moves when a module the indexer runs changes, and stays when another one does", () => {
    const before = sharedSourcesHash(repoRoot);
    const editing = (target: string) => (file: string) => (file === target ? `${read(file)}\n// edited\n` : read(file));
    expect(sharedSourcesHash(repoRoot, editing("domain/activity-position.ts"))).not.toBe(before);
    expect(sharedSourcesHash(repoRoot, editing("usecases/prepare/pipeline.ts"))).toBe(before);
  });
});
