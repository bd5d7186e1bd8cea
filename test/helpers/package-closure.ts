// A node_modules of only what a package.json names: the packages it names and everything they depend on
// (dependencies, the optional ones that are installed, the peers not marked optional: what npm installs), each found in this checkout's node_modules as
// Node would find it from the package that asks, and laid out at the same place under `dest` as hard links
// (no network, no install). Hard links, not symlinks: a package's real path is then inside `dest`, so what
// it imports resolves there or nowhere, never from the checkout.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";

type Manifest = {
  bin?: string | Record<string, string>;
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

/** The folder of package `name` as Node finds it from `from`, looking no higher than `root`; undefined when none. */
function findPackage(name: string, from: string, root: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/**
 * The folders (under `root`) of the packages `manifest` names, with its devDependencies, and of their
 * dependency closure. A dependency that is not installed fails, unless it is optional.
 */
export function packageClosure(manifest: Manifest, root: string): string[] {
  const found = new Set<string>();
  const visit = (names: Record<string, string> | undefined, from: string, optional: boolean) => {
    for (const name of Object.keys(names ?? {})) {
      const dir = findPackage(name, from, root);
      if (!dir) {
        if (optional) continue;
        throw new Error(`${name} (asked for from ${relative(root, from) || "."}) is not installed in ${root}`);
      }
      if (found.has(dir)) continue;
      found.add(dir);
      const own = manifestOf(dir);
      visit(own.dependencies, dir, false);
      visit(own.optionalDependencies, dir, true);
      // npm installs a package's peers, but not those its peerDependenciesMeta marks optional (drizzle-orm's drivers).
      const peers = Object.entries(own.peerDependencies ?? {}).filter(([peer]) => !own.peerDependenciesMeta?.[peer]?.optional);
      visit(Object.fromEntries(peers), dir, false);
    }
  };
  visit({ ...manifest.dependencies, ...manifest.devDependencies }, root, false);
  return [...found].sort();
}

/** Hard-links each package folder of `packages` (folders under `root`) to the same place under `dest`. */
export function linkPackages(packages: string[], root: string, dest: string): void {
  const done: string[] = [];
  for (const dir of packages) {
    // A package nested in one already linked came with it (`cp -al` takes the whole folder).
    if (done.some((d) => dir.startsWith(`${d}/`))) continue;
    const target = join(dest, relative(root, dir));
    mkdirSync(dirname(target), { recursive: true });
    execFileSync("cp", ["-al", dir, target]);
    done.push(dir);
  }
}

/** node_modules/.bin under `dest` for the top-level packages of `packages`, as npm makes it (links to each `bin`). */
export function linkBins(packages: string[], root: string, dest: string): void {
  const bins = join(dest, "node_modules", ".bin");
  mkdirSync(bins, { recursive: true });
  for (const dir of packages) {
    const rel = relative(join(root, "node_modules"), dir);
    if (rel.includes("node_modules")) continue; // nested: not on the folder's PATH
    const { bin, name } = manifestOf(dir);
    const entries = typeof bin === "string" ? { [name!.split("/").pop()!]: bin } : (bin ?? {});
    for (const [command, file] of Object.entries(entries)) symlinkSync(join("..", rel, file), join(bins, command));
  }
}
