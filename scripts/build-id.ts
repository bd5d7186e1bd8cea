// `npx tsx scripts/build-id.ts [root]`: the build id Ponder gives the indexer whose root is `root` (default:
// this repository), from Ponder's own build code: the hashes of ponder.config.ts's sources, of
// ponder.schema.ts and of every file Ponder runs under src/ (src/api/ excepted). A change that leaves it
// equal keeps the existing index; a new id is a reindex (README, "Zero-downtime reindex").
// Needs the deployments file (DEPLOYMENTS_FILE), which ponder.config.ts reads. No database, no RPC.
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../adapters/config.js";

type Hashed = { status: "success"; result: { contentHash: string } } | { status: "error"; error: Error };
type Build = { executeConfig(): Promise<Hashed>; executeSchema(): Promise<Hashed>; executeIndexingFunctions(): Promise<Hashed> };

const ponderEsm = join(repoRoot, "node_modules", "ponder", "dist", "esm");
const load = async <T>(file: string) => (await import(pathToFileURL(join(ponderEsm, file)).href)) as T;

/** Ponder's build id of the app at `root`, as `ponder start` computes it (build/index.js, compileIndexing). */
export async function ponderBuildId(root: string): Promise<string> {
  const { createBuild } = await load<{ createBuild(a: unknown): Promise<Build> }>("build/index.js");
  const { buildOptions } = await load<{ buildOptions(a: unknown): Record<string, unknown> }>("internal/options.js");
  const { createLogger } = await load<{ createLogger(a: unknown): unknown }>("internal/logger.js");
  const { createShutdown } = await load<{ createShutdown(): { kill(): Promise<void> } }>("internal/shutdown.js");
  const { BUILD_ID_VERSION } = { BUILD_ID_VERSION: "2" }; // build/index.js, Ponder 0.16 (not exported)
  const options = buildOptions({ cliOptions: { root, config: "ponder.config.ts", command: "start", version: "0.16.10", logLevel: "silent" } });
  const shutdown = createShutdown();
  const common = { options, logger: createLogger({ level: "silent" }), shutdown, buildShutdown: shutdown, apiShutdown: shutdown };
  try {
    const build = await createBuild({ common, cliOptions: { root, config: "ponder.config.ts" } });
    const parts = [await build.executeConfig(), await build.executeSchema(), await build.executeIndexingFunctions()];
    const hash = createHash("sha256").update(BUILD_ID_VERSION);
    for (const part of parts) {
      if (part.status === "error") throw part.error;
      hash.update(part.result.contentHash);
    }
    return hash.digest("hex").slice(0, 10);
  } finally {
    await shutdown.kill();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(repoRoot, "scripts", "build-id.ts")) {
  console.log(await ponderBuildId(resolve(process.argv[2] ?? repoRoot)));
  process.exit(0);
}
