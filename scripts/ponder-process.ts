// Runs Ponder's own CLI as a child of a service process: its JSON lines reshaped to the service's fields,
// signals passed on, and the child's exit taken as this process's.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { repoRoot } from "../adapters/config.js";
import { normalizeForeignLine } from "../adapters/logger.js";

const ponderBin = join(repoRoot, "node_modules", "ponder", "dist", "esm", "bin", "ponder.js");

/** Ponder's log options at the service's level (Ponder knows no fatal or silent). */
export function ponderLogArgs(level: string): string[] {
  return ["--log-format", "json", "--log-level", ({ fatal: "error", silent: "error" } as Record<string, string>)[level] ?? level];
}

export function runPonder(args: string[], { service, databaseUrl }: { service: string; databaseUrl: string }): void {
  // Ponder takes PORT over --port: PORT is the API's (npm start passes one environment to all), never Ponder's.
  const { PORT: _apiPort, ...environment } = process.env;
  // pg's deprecation notice inside Ponder is not ours to act on.
  const child = spawn(process.execPath, ["--disable-warning=DeprecationWarning", ponderBin, ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...environment, DATABASE_URL: databaseUrl },
  });
  for (const [input, fallback] of [
    [child.stdout, "info"],
    [child.stderr, "warn"],
  ] as const) {
    createInterface({ input, crlfDelay: Infinity }).on("line", (text) => {
      if (!text.trim()) return;
      const { level, line } = normalizeForeignLine(text, { service }, fallback);
      (level === "warn" || level === "error" || level === "fatal" ? process.stderr : process.stdout).write(`${line}\n`);
    });
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
