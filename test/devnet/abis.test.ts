// abis/ is the only ABI source of the project; it must be exactly what the reference contracts compile to.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { abiContracts, abiModule, compileContracts } from "../../devnet/compile.js";

const abisDir = join(import.meta.dirname, "../../abis");

describe("abis/", () => {
  const artifacts = compileContracts({ force: true });
  const names = abiContracts(artifacts);

  it("has one module per deployable contract, equal to the compiled ABI", () => {
    for (const name of names) {
      expect(readFileSync(join(abisDir, `${name}.ts`), "utf8"), `${name}.ts is stale: run npm run compile`).toBe(abiModule(name, artifacts[name]!.abi));
    }
  });

  it("has no module for a contract that no longer exists", () => {
    const files = readdirSync(abisDir)
      .filter((f) => f !== "index.ts")
      .map((f) => f.replace(/\.ts$/, ""));
    expect(files.sort()).toEqual([...names].sort());
  });
});
