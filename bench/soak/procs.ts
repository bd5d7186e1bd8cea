// The soak's processes: a Postgres and a Redis of its own (so restarting them never touches the machine's
// shared services), and a supervisor that runs each service process as systemd or Kubernetes would:
// restarted when it dies, with a backoff, whatever the cause (unlike `npm start`, which stops everything).
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, chownSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { freePort, waitFor } from "../../test/helpers/stack.js";
import { repoRoot } from "../lib.js";

const run = promisify(execFile);
const PG_BIN = process.env.SOAK_PG_BIN ?? "/usr/lib/postgresql/15/bin";

export type OwnPostgres = { port: number; adminUrl: string; urlOf(db: string): string; restart(): Promise<void>; stop(): Promise<void> };

/** Postgres refuses to run as root: as root, its commands run as the user "postgres", who owns the data. */
const asPostgres = (cmd: string, args: string[]): [string, string[]] =>
  process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];

async function pgCtl(args: string[]) {
  const [cmd, full] = asPostgres(join(PG_BIN, "pg_ctl"), args);
  await run(cmd, full, { timeout: 120_000 });
}

/** initdb in `dir` and pg_ctl start on a free port (fsync off: nothing here outlives the run). */
export async function startOwnPostgres(dir: string): Promise<OwnPostgres> {
  const data = join(dir, "pgdata");
  mkdirSync(dir, { recursive: true });
  const uid = process.getuid?.() === 0 ? Number(execFileSync("id", ["-u", "postgres"]).toString()) : undefined;
  const gid = process.getuid?.() === 0 ? Number(execFileSync("id", ["-g", "postgres"]).toString()) : undefined;
  if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid);
  const [cmd, args] = asPostgres(join(PG_BIN, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  await run(cmd, args, { timeout: 120_000 });
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => pgCtl(["-D", data, "-o", options, "-l", join(dir, "postgres.log"), "-w", "-t", "120", "start"]);
  await start();
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  return {
    port,
    adminUrl,
    urlOf: (db) => `postgresql://postgres@127.0.0.1:${port}/${db}`,
    // As an operator restarts it: a fast shutdown (every connection cut, transactions rolled back), then start.
    async restart() {
      await pgCtl(["-D", data, "-m", "fast", "-w", "-t", "120", "stop"]);
      await start();
    },
    async stop() {
      await pgCtl(["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
    },
  };
}

export async function createDatabaseOn(pg: OwnPostgres, name: string): Promise<string> {
  const admin = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  return pg.urlOf(name);
}

// ------------------------------------------------------------------------------------------ supervisor

export type Supervised = {
  name: string;
  child: ChildProcess | undefined;
  /** Restarts so far, each with when it died and why. */
  deaths: { at: number; why: string }[];
  /** The last lines of output (all of it goes to the run directory's <name>.log). */
  tail: string[];
  /** The child's pid while it runs. */
  pid(): number | undefined;
  alive(): boolean;
  /** SIGKILL to the whole process group (the supervisor restarts it unless `noRestart`). */
  kill(): void;
  stop(): Promise<void>;
};

export type SuperviseOptions = {
  nodeFlags?: readonly string[];
  /** For SOAK_BREAK only: a death is not followed by a restart. */
  noRestart?: () => boolean;
  say(line: string): void;
  logDir: string;
};

/** Runs `node [flags] --import tsx <file>` with `env`, restarting it each time it exits (1 s, doubling to 10 s; back to 1 s after a minute up). */
export function supervise(name: string, file: string, env: Record<string, string>, options: SuperviseOptions): Supervised {
  const logFile = join(options.logDir, `${name}.log`);
  let stopping = false;
  let backoff = 1000;
  const s: Supervised = {
    name,
    child: undefined,
    deaths: [],
    tail: [],
    pid: () => s.child?.pid,
    alive: () => !!s.child && s.child.exitCode === null && s.child.signalCode === null,
    kill() {
      if (s.child?.pid) signalGroup(s.child, "SIGKILL");
    },
    async stop() {
      stopping = true;
      const c = s.child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise<void>((r) => c.once("exit", () => r()));
      signalGroup(c, "SIGTERM");
      const timer = setTimeout(() => signalGroup(c, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const start = () => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), "--import", "tsx", join(repoRoot, file)], {
      cwd: repoRoot,
      env: { ...process.env, BASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    s.child = child;
    const keep = (chunk: Buffer) => {
      appendFileSync(logFile, chunk);
      for (const line of chunk.toString().split("\n")) if (line.trim()) s.tail.push(line);
      if (s.tail.length > 400) s.tail.splice(0, s.tail.length - 400);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    child.on("exit", (code, signal) => {
      if (stopping) return;
      const why = signal ? `signal ${signal}` : `exit code ${code}`;
      s.deaths.push({ at: Date.now(), why });
      if (options.noRestart?.()) return options.say(`${name} died (${why}); not restarted (SOAK_BREAK)`);
      backoff = Date.now() - startedAt > 60_000 ? 1000 : Math.min(backoff * 2, 10_000);
      options.say(`${name} died (${why}); restarting in ${backoff / 1000} s`);
      setTimeout(() => !stopping && start(), backoff);
    });
  };
  start();
  return s;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal);
  }
}

/** Resident memory (MiB) of `pid` and every process under it (the indexer's script runs Ponder as a child). */
export function treeRssMiB(pid: number): number {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,rss="], { encoding: "utf8" });
  const rows = out
    .split("\n")
    .filter(Boolean)
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number, number]);
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, pp] of rows)
      if (tree.has(pp) && !tree.has(p)) {
        tree.add(p);
        grew = true;
      }
  }
  return rows.filter(([p]) => tree.has(p)).reduce((a, [, , rss]) => a + rss, 0) / 1024;
}

export { freePort, waitFor };
