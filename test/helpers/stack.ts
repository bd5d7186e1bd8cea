// The running system for end-to-end tests, started as a user starts it: the devnet and the indexer as
// processes of their own, on free ports, with a database, deployments file and schemas of their own.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { fileURLToPath } from "node:url";

// Not from adapters/config.ts: this runs in vitest's global setup, whose environment carries Vite's BASE_URL.
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

export type Stack = {
  rpcUrl: string;
  databaseUrl: string;
  schema: string;
  viewsSchema: string;
  deploymentsFile: string;
  ponderUrl: string;
  /** The devnet's x402 facilitator. */
  facilitatorUrl: string;
  /** The devnet's faucet (devnet/faucet.ts). */
  faucetUrl: string;
  env: Record<string, string>;
};

const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `node [nodeFlags] --import tsx <file>` (this process's Node, or the executable `node`), its output kept in `log` with its name in front. */
export function spawnTs(
  file: string,
  env: Record<string, string>,
  name: string,
  log: string[],
  nodeFlags: readonly string[] = [],
  node = process.execPath,
): ChildProcess {
  const child = spawn(node, [...nodeFlags, "--import", "tsx", join(repoRoot, file)], {
    cwd: repoRoot,
    // Vite sets BASE_URL to its public path ("/"); the service reads BASE_URL as its own URL.
    env: { ...process.env, BASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) log.push(`${name}| ${line}`);
    if (log.length > 4000) log.splice(0, log.length - 4000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return child;
}

export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, log: string[]) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000} s. Last output:\n${log.slice(-40).join("\n")}`);
}

export function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = "SIGTERM") {
  if (!child || child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid!, signal);
    } catch {
      resolve();
    }
  });
}

/** Ponder's readiness: 200 once the backfill is done and it is indexing live. */
export async function ponderReady(ponderUrl: string): Promise<boolean> {
  const res = await fetch(`${ponderUrl}/ready`);
  return res.status === 200;
}

export type StartedStack = Stack & { stop(): Promise<void>; log: string[]; devnet: ChildProcess; indexer: ChildProcess | undefined };

export type StackOptions = {
  /** Days of seeded history. */
  historyDays?: number;
  /** The live simulator's step; 3_600_000 keeps the chain still (no block unless a test sends one). */
  simIntervalMs?: number;
  /** Start the indexer too and resolve once it is ready (default); false starts the devnet only. */
  indexer?: boolean;
  /** The Postgres server's admin URL to make the stack's database in (default: the machine's, TEST_POSTGRES_ADMIN_URL). */
  adminUrl?: string;
};

/** Starts a devnet with `historyDays` of history and an indexer over it; resolves once indexed. */
export async function startStack({
  historyDays = 2,
  simIntervalMs = 1000,
  indexer: withIndexer = true,
  adminUrl = ADMIN_URL,
}: StackOptions = {}): Promise<StartedStack> {
  const log: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), "agent-stack-"));
  const dbName = `agent_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  await admin.end();
  const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
  const [devnetPort, ponderPort, facilitatorPort, faucetPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const deploymentsFile = join(dir, "deployments.json");
  const env = {
    DEVNET_PORT: String(devnetPort),
    DEVNET_HISTORY_DAYS: String(historyDays),
    DEVNET_SIM_INTERVAL_MS: String(simIntervalMs),
    DEPLOYMENTS_FILE: deploymentsFile,
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: "ponder",
    VIEWS_SCHEMA: "agent_views",
    PONDER_PORT: String(ponderPort),
    X402_FACILITATOR_PORT: String(facilitatorPort),
    DEVNET_FAUCET_PORT: String(faucetPort),
  };
  const rpcUrl = `http://127.0.0.1:${devnetPort}`;
  const ponderUrl = `http://127.0.0.1:${ponderPort}`;
  const devnet = spawnTs("devnet/main.ts", env, "devnet", log);
  await waitFor("devnet", () => existsSync(join(dir, "ready.json")), 240_000, log);
  const indexer = withIndexer ? spawnTs("scripts/indexer.ts", env, "indexer", log) : undefined;
  if (indexer) await waitFor("indexer", () => ponderReady(ponderUrl), 240_000, log);
  const facilitatorUrl = `http://127.0.0.1:${facilitatorPort}`;
  const faucetUrl = `http://127.0.0.1:${faucetPort}`;
  const stack = { rpcUrl, databaseUrl, schema: "ponder", viewsSchema: "agent_views", deploymentsFile, ponderUrl, facilitatorUrl, faucetUrl, env };
  return {
    ...stack,
    log,
    devnet,
    indexer,
    async stop() {
      await Promise.all([stopProcess(indexer), stopProcess(devnet)]);
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => {});
      await a.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;
