import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Vitest's order (failed first, then slowest), with the indexer's truth test last: it compares the
 * projections with the chain after every other file has traded, deposited and withdrawn on the devnet,
 * which is when derived figures would have drifted.
 */
class TruthTestLast extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files);
    const last = (f: TestSpecification) => f.moduleId.endsWith("/indexer-truth.test.ts");
    return [...sorted.filter((f) => !last(f)), ...sorted.filter(last)];
  }
}

/** End-to-end files that start every process they use themselves (no `inject("stack")`): they need no shared stack. */
export const OWN_STACK = [
  "test/e2e/activity-reorg.test.ts",
  "test/e2e/devnet-reuse.test.ts",
  "test/e2e/embedded-start.test.ts",
  "test/e2e/fresh-start.test.ts",
  "test/e2e/indexer-crash.test.ts",
  "test/e2e/indexer-faults.test.ts",
  "test/e2e/indexer-reorg.test.ts",
  "test/e2e/past-one-machine.test.ts",
  "test/e2e/report-card-batches.test.ts",
  "test/e2e/report-card-grading.test.ts",
  "test/e2e/report-card-traces.test.ts",
  "test/e2e/soak-smoke.test.ts",
];

/**
 * Unit files that need a process of their own: they mock modules or stub globals (a mock must meet a fresh
 * module), or boot an in-process devnet (`bootCore`, `startChain`: Hardhat's chain is one per process, and each such file
 * deploys onto a fresh one). Found by what the file says, so a new file lands on the right side by itself.
 */
const NEEDS_OWN_PROCESS = /\bvi\.(mock|doMock|unmock|resetModules|stubGlobal|stubEnv)\(|\b(bootCore|startChain)\(/;
// Read beside this file, not from the working directory: vitest also loads it when started in a subdirectory.
const ROOT = fileURLToPath(new URL(".", import.meta.url));
const OWN_PROCESS = readdirSync(`${ROOT}test`, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `test/${f}`)
  .filter((f) => NEEDS_OWN_PROCESS.test(readFileSync(`${ROOT}${f}`, "utf8")));
const UNIT_OWN_PROCESS = OWN_PROCESS.filter((f) => !f.startsWith("test/e2e/"));
// The e2e project has no isolated twin (a second project would start a second stack): such a file goes to OWN_STACK.
const sharedE2e = OWN_PROCESS.filter((f) => f.startsWith("test/e2e/") && !OWN_STACK.includes(f));
if (sharedE2e.length)
  throw new Error(`${sharedE2e.join(", ")}: the e2e project's files share one process; one that mocks or boots an in-process devnet belongs in OWN_STACK`);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 240_000,
    pool: "forks",
    // Integration tests share machine services; run files one at a time.
    fileParallelism: false,
    reporters: ["default"],
    sequence: { sequencer: TruthTestLast },
    // Vite writes its own BASE_URL ("/", its public path) into process.env, where it would clash
    // with ours (a URL). Empty counts as unset in adapters/config.ts, so the default applies.
    env: { BASE_URL: "" },
    // `npm test` runs three streams at once (scripts/test-streams.ts): the type check, linters and the unit projects; e2e-own; and e2e.
    projects: [
      // One process for all of a project's files (isolate: false) where the files allow it: a fresh fork per file
      // re-imported viem, BullMQ, the MCP SDK and x402, 1-4 s of CPU a file on a 2-core machine (the e2e stream
      // spent 150 s importing under CI's load). The unit files that cannot share a process run in `unit-isolated`.
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: ["test/e2e/**", ...UNIT_OWN_PROCESS], isolate: false } },
      { extends: true, test: { name: "unit-isolated", include: UNIT_OWN_PROCESS } },
      // The devnet and the indexer run once per run of these, as processes of their own (test/helpers/stack.ts).
      // They talk to the stack and to processes over the network, mock nothing and leave process.env alone.
      {
        extends: true,
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], exclude: OWN_STACK, globalSetup: ["test/global-setup.ts"], isolate: false },
      },
      { extends: true, test: { name: "e2e-own", include: OWN_STACK } },
    ],
  },
});
