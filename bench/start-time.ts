// `npm start` from spawn to its "ready: the API at" line, started twice in a row on the same database,
// deployments file and embedded folder (the second start is what a user meets the next time), on ports
// of its own so it never meets another stack. Prints the time to each milestone of its log and the load
// average before each start. Alone: `npx tsx bench/start-time.ts` (START_RUNS, DEVNET_HISTORY_DAYS).
// START_COMPARE=1: START_ROUNDS rounds (default 3), each a first and a second start of npm start's default
// (anvil, the chain kept in a file) and a first start with DEVNET_STATE_FILE=off (the in-process EDR
// chain, new every start), in alternating order; then the median of each.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import postgres from "postgres";
import { freePort } from "../test/helpers/stack.js";
import { ADMIN_URL, isMain, printMachine, repoRoot } from "./lib.js";

/** What the log says, in order, and the line that marks it. */
const MILESTONES: [string, RegExp][] = [
  ["devnet deployed", /\[devnet\] deployed /],
  ["devnet seeded", /\[devnet\] (seeded |reusing the devnet saved)/],
  ["devnet ready", /devnet ready at /],
  ["indexer ready", /ready: the API at /],
];

type Run = { loadBefore: string; seconds: Record<string, number>; lines: string[] };

async function startOnce(env: Record<string, string>): Promise<Run> {
  const loadBefore = loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
  const t0 = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: repoRoot,
    env: { ...process.env, BASE_URL: "", NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const seconds: Record<string, number> = {};
  const lines: string[] = [];
  const done = new Promise<void>((resolve, reject) => {
    child.on("close", (code) => (seconds["indexer ready"] ? resolve() : reject(new Error(`npm start exited (${code}):\n${lines.slice(-30).join("\n")}`))));
  });
  for (const input of [child.stdout, child.stderr]) {
    createInterface({ input }).on("line", (line) => {
      const s = (Date.now() - t0) / 1000;
      lines.push(`${s.toFixed(1).padStart(6)} ${line}`);
      for (const [name, re] of MILESTONES) if (seconds[name] === undefined && re.test(line)) seconds[name] = s;
      if (seconds["indexer ready"] !== undefined && !child.killed) child.kill("SIGINT");
    });
  }
  await done;
  return { loadBefore, seconds, lines };
}

export async function benchStartTime(runs = Number(process.env.START_RUNS ?? 2), extraEnv: Record<string, string> = {}): Promise<Run[]> {
  const dir = mkdtempSync(join(tmpdir(), "start-time-"));
  const dbName = `start_time_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  const ports = await Promise.all(Array.from({ length: 7 }, freePort));
  const env = {
    DATABASE_URL: Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString(),
    REDIS_PREFIX: `start_time_${dbName}`,
    DEPLOYMENTS_FILE: join(dir, "deployments.json"),
    EMBEDDED_DIR: join(dir, "embedded"),
    DEVNET_PORT: String(ports[0]),
    PORT: String(ports[1]),
    PONDER_PORT: String(ports[2]),
    X402_FACILITATOR_PORT: String(ports[3]),
    METRICS_PORT: String(ports[4]),
    WORKER_METRICS_PORT: String(ports[5]),
    DEVNET_FAUCET_PORT: String(ports[6]),
    ...extraEnv,
  };
  const results: Run[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const run = await startOnce(env);
      results.push(run);
      console.log(`start ${i + 1} (load average before: ${run.loadBefore}): ${JSON.stringify(run.seconds)}`);
      if (process.env.START_LOG) console.log(run.lines.join("\n"));
    }
  } finally {
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => {});
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

async function compare(rounds: number) {
  const ready: Record<string, number[]> = { "default, first": [], "default, second": [], "DEVNET_STATE_FILE=off": [] };
  const kept = async () => {
    const [first, second] = await benchStartTime(2);
    ready["default, first"]!.push(first!.seconds["indexer ready"]!);
    ready["default, second"]!.push(second!.seconds["indexer ready"]!);
  };
  const fresh = async () => {
    const [run] = await benchStartTime(1, { DEVNET_STATE_FILE: "off" });
    ready["DEVNET_STATE_FILE=off"]!.push(run!.seconds["indexer ready"]!);
  };
  for (let round = 0; round < rounds; round++) {
    console.log(`round ${round + 1}: ${round % 2 === 0 ? "default, then off" : "off, then default"}`);
    for (const run of round % 2 === 0 ? [kept, fresh] : [fresh, kept]) await run();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, xs] of Object.entries(ready))
    console.log(`${name}: median ${median(xs).toFixed(1)} s to ready (${xs.map((x) => x.toFixed(1)).join(", ")})`);
}

if (isMain(import.meta.url)) {
  printMachine();
  if (process.env.START_COMPARE) await compare(Number(process.env.START_ROUNDS ?? 3));
  else await benchStartTime();
  process.exit(0);
}
