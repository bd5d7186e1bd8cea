// Ponder's build id decides whether the indexer keeps its index: a new id is a reindex. It hashes
// ponder.config.ts's sources, ponder.schema.ts and the files under src/, so a change to the API, the
// workers or any room outside src/ must leave it equal, and a change to src/ must not. Shown on a copy of
// the repository, with Ponder's own build code (scripts/build-id.ts).
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot } from "../../adapters/config.js";

const stack = inject("stack");
let copy: string;

const buildId = async () =>
  (
    await promisify(execFile)(process.execPath, [join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs"), join(copy, "scripts", "build-id.ts"), copy], {
      cwd: copy,
      env: { ...process.env, DEPLOYMENTS_FILE: stack.deploymentsFile },
      encoding: "utf8",
    })
  ).stdout.trim();

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), "build-id-"));
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: repoRoot, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    try {
      cpSync(join(repoRoot, file), join(copy, file));
    } catch {
      // a file deleted in the working tree but still in the index
    }
  }
  symlinkSync(join(repoRoot, "node_modules"), join(copy, "node_modules"));
});

afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe("Ponder's build id", () => {
  it("stays when the API, the workers or a shared room change, and moves when src/ changes", async () => {
    const before = await buildId();
    expect(before).toMatch(/^[0-9a-f]{10}$/);
    for (const file of ["api/app.ts", "workers/main.ts", "usecases/prepare/pipeline.ts", "mcp/server.ts", "client/agent-client.ts"]) {
      appendFileSync(join(copy, file), "\nexport const buildIdProbe = 1;\n");
    }
    expect(await buildId()).toBe(before);
    appendFileSync(join(copy, "src", "vaults.ts"), "\n// a change to the indexing code\n");
    expect(await buildId()).not.toBe(before);
  }, 300_000); // three builds of Ponder's (a Vite server each): about 8 s each, several times that on a loaded machine
});
