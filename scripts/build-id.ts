// `npm run build-id [-- root]`: the build id Ponder gives the indexer whose root is `root` (default: this
// repository), from Ponder's own build code: the hashes of ponder.config.ts's sources, of ponder.schema.ts
// and of every file Ponder runs under src/ (src/api/ excepted). A change that leaves it equal keeps the
// existing index; a new id is a reindex (docs/reindex.md). Needs the deployments file
// (DEPLOYMENTS_FILE), which ponder.config.ts reads. No database, no RPC.
//
// Ponder hashes only the files under src/, not the shared modules they import (domain/price.ts...), so a
// change to one of those would keep a stale index. `npm run build-id -- --write` writes their hash into
// src/shared-sources.ts, which Ponder does hash; test/indexer/shared-sources.test.ts fails while it is stale.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
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

/**
 * Where the deployments file is and how it parses: ponder.config.ts's own hash covers what it holds (every
 * contract address and ABI), so these two are not what the indexer computes with.
 */
const LOCATES_DEPLOYMENTS = ["adapters/config.ts", "adapters/chain/deployments.ts"];
const SHARED_SOURCES_FILE = join("src", "shared-sources.ts");
const IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

/** The modules outside src/ that the indexing functions run, transitively, as paths from `root`, sorted. */
export function indexedSharedSources(root: string, read = (file: string) => readFileSync(join(root, file), "utf8")): string[] {
  const indexing = readdirTs(join(root, "src")).map((f) => join("src", f));
  const seen = new Set<string>();
  const queue = [...indexing];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.endsWith(".json") || LOCATES_DEPLOYMENTS.includes(file)) continue;
    for (const [, spec] of read(file).matchAll(IMPORT)) {
      const target = relative(root, resolve(root, dirname(file), spec!));
      const candidates = [target, target.replace(/\.js$/, ".ts"), `${target}.ts`, join(target, "index.ts")];
      const found = candidates.find((c) => (c.endsWith(".ts") || c.endsWith(".json") ? existsSync(join(root, c)) : false));
      if (found) queue.push(found);
    }
  }
  return [...seen].filter((f) => !f.startsWith("src/") && !LOCATES_DEPLOYMENTS.includes(f)).sort();
}

const readdirTs = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "shared-sources.ts");

/** sha256 over the shared sources the indexer runs, each as its path and its text. */
export function sharedSourcesHash(root: string, read = (file: string) => readFileSync(join(root, file), "utf8")): string {
  const hash = createHash("sha256");
  for (const file of indexedSharedSources(root, read)) hash.update(`${file}\0${read(file)}\0`);
  return hash.digest("hex");
}

/** The text of src/shared-sources.ts for the sources as they are now. */
export function sharedSourcesFile(root: string): string {
  const files = indexedSharedSources(root);
  return [
    "// Written by `npm run build-id -- --write`: the hash of the modules outside src/ that the indexing functions",
    "// run. Ponder hashes the files under src/ into its build id, this one among them, so a change to any of",
    "// these is a new build (a reindex), as a change to src/ is:",
    ...files.map((f) => `//   ${f}`),
    `export const SHARED_SOURCES_SHA256 = "${sharedSourcesHash(root)}";`,
    "",
  ].join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(repoRoot, "scripts", "build-id.ts")) {
  const args = process.argv.slice(2);
  if (args.includes("--write")) {
    writeFileSync(join(repoRoot, SHARED_SOURCES_FILE), sharedSourcesFile(repoRoot));
    console.log(`wrote ${SHARED_SOURCES_FILE}`);
  } else {
    console.log(await ponderBuildId(resolve(args[0] ?? repoRoot)));
  }
  process.exit(0);
}
