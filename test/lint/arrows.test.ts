// The room rules of .dependency-cruiser.cjs (README, "Where things live") catch what they name: each
// broken arrow of a small fixture tree is reported by its rule, and the repository itself has none.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type IReporterOutput } from "dependency-cruiser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../adapters/config.js";
import rooms from "../../scripts/rooms.json" with { type: "json" };

const config = createRequire(import.meta.url)(join(repoRoot, ".dependency-cruiser.cjs")) as { forbidden: unknown[]; options: Record<string, unknown> };
const ROOMS = rooms.product;

async function violations(baseDir: string, tsConfig?: string): Promise<{ rule: string; from: string; to: string }[]> {
  const cwd = process.cwd();
  process.chdir(baseDir); // dependency-cruiser resolves the rule paths against the working directory
  try {
    const present = ROOMS.filter((r) => existsSync(join(baseDir, r)));
    const options = { ...config.options, ...(tsConfig ? {} : { tsConfig: undefined }), ruleSet: { forbidden: config.forbidden }, validate: true };
    const result = (await cruise(present, options as never)) as IReporterOutput;
    const output = result.output as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
    return output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
  } finally {
    process.chdir(cwd);
  }
}

let fixture: string;
const write = (file: string, text: string) => {
  mkdirSync(dirname(join(fixture, file)), { recursive: true });
  writeFileSync(join(fixture, file), text);
};

beforeAll(() => {
  fixture = mkdtempSync(join(tmpdir(), "arrows-"));
  write("domain/money.ts", 'import { read } from "../adapters/db";\nexport const m = read;\n'); // the domain reaching an adapter
  write("domain/clock.ts", 'import { readFileSync } from "node:fs";\nexport const c = readFileSync;\n'); // the domain doing I/O
  write("adapters/db.ts", "export const read = 1;\n");
  write("usecases/a.ts", 'import { b } from "./b";\nexport const a = b;\n'); // a circle
  write("usecases/b.ts", 'import { a } from "./a";\nexport const b = a;\n');
  write("contract/shape.ts", 'import { x } from "../usecases/a";\nexport const s = x;\n'); // uphill
  write("workers/job.ts", 'import { handler } from "../api/route";\nexport const j = handler;\n'); // a face importing a face
  write("api/route.ts", "export const handler = 1;\n");
  write("adapters/route-user.ts", 'import { handler } from "../api/route";\nexport const u = handler;\n'); // below importing a face
  write("client/index.ts", 'import { helper } from "../test/helper";\nexport const i = helper;\n'); // product importing a test
  write("test/helper.ts", "export const helper = 1;\n");
  write("src/vaults.ts", 'import { a } from "../usecases/a";\nexport const v = a;\n'); // indexing code reaching a use-case
  write("boot/start.ts", 'import { handler } from "../api/route";\nexport const b = handler;\n'); // the boot room reaching a face
  write("usecases/run.ts", 'import { b } from "../boot/start";\nexport const r = b;\n'); // a use-case reaching the boot room
});

afterAll(() => rmSync(fixture, { recursive: true, force: true }));

describe("the arrows between rooms", () => {
  it("reports every broken arrow of the fixture by its rule", async () => {
    const found = await violations(fixture);
    const rules = (from: string) => found.filter((v) => v.from === from).map((v) => v.rule);
    expect(rules("domain/money.ts")).toContain("domain-imports-only-domain");
    expect(rules("domain/clock.ts")).toContain("domain-has-no-io");
    expect(found.filter((v) => v.rule === "no-circular").map((v) => v.from)).toEqual([expect.stringMatching(/^usecases\/[ab]\.ts$/)]);
    expect(rules("contract/shape.ts")).toContain("contract-imports-domain");
    expect(rules("workers/job.ts")).toContain("faces-do-not-import-faces");
    expect(rules("adapters/route-user.ts")).toEqual(expect.arrayContaining(["adapters-import-below", "below-faces-import-no-face"]));
    expect(rules("client/index.ts")).toContain("product-imports-no-tests");
    expect(rules("src/vaults.ts")).toContain("indexer-imports-domain");
    expect(rules("boot/start.ts")).toEqual(expect.arrayContaining(["boot-imports-below", "below-faces-import-no-face"]));
    expect(rules("usecases/run.ts")).toContain("usecases-import-below");
  });

  it("finds none in the repository", async () => {
    expect(await violations(repoRoot, "tsconfig.json")).toEqual([]);
  });
});
