// Some registry mirrors serve only one platform's builds of packages with native binaries; installed
// from one, `npm install` writes a lock without the other platforms' optional packages, and `npm ci`
// on another platform then refuses the lock as out of sync. This adds an entry for each such package (optional,
// with its os/cpu/libc), which no install on this platform fetches. Run after `npm install` changes
// the lock: `npx tsx scripts/lockfile-platforms.ts` (it asks `npm ci --dry-run` what is missing).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

type Entry = { version?: string; optional?: boolean; os?: string[]; cpu?: string[]; libc?: string[]; optionalDependencies?: Record<string, string> };

function missingPackages(): string[] {
  let output = "";
  try {
    execFileSync("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    output = String((error as { stderr?: string }).stderr ?? "");
  }
  return [...output.matchAll(/Missing: (.+?)@\S* from lock file/g)].map((m) => m[1]!);
}

const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, Entry> };
const wanted = new Map<string, string>();
for (const entry of Object.values(lock.packages)) for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) wanted.set(dep, range);

const missing = missingPackages();
for (const name of missing) {
  const platform =
    /-(darwin|linux|win32|freebsd|android|openbsd|openharmony|sunos|netbsd|aix)-(arm64|x64|arm|ia32|riscv64|ppc64|s390x|loong64)(?:-(gnu|musl|gnueabihf|musleabihf|msvc))?/.exec(
      name,
    );
  const entry: Entry = { version: (wanted.get(name) ?? "0.0.0").replace(/^[\^~>=<\s]+/, "").split(" ")[0], optional: true };
  if (platform) {
    entry.os = [platform[1]!];
    entry.cpu = [platform[2]!];
    if (platform[3]?.startsWith("musl")) entry.libc = ["musl"];
    if (platform[3]?.startsWith("gnu")) entry.libc = ["glibc"];
  }
  lock.packages[`node_modules/${name}`] = entry;
}
// npm orders entries with localeCompare("en"); any other order makes the next `npm install` rewrite the lock.
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => a.localeCompare(b, "en")));
writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${missing.length} optional platform packages to package-lock.json`);
