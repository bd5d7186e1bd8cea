// `npm start`: the whole service on one machine. With no chain configured (RPC_URL unset) it first
// starts the devnet and waits until it is deployed and seeded; then the indexer, the API and a worker.
// Every child's output is prefixed with its name. Ctrl-C stops them all; if one dies, all stop.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { config, devnetFaucetUrl, devnetReadyFile, devnetStateFile, redactUrl, repoRoot, rpcUrl, usesDevnet } from "../adapters/config.js";
import { CHAIN_ID } from "../domain/chain.js";
import { probeTcp, readChainId, requireChain, requireServices } from "../adapters/services.js";
import { API_ENV, API_NODE_FLAGS } from "../api/node-flags.js";
import { embeddedDefaults, type Embedded } from "../boot/embedded-services.js";
import { MCP_PATH, OPENAPI_PATH, QUEUE_DASHBOARD_PATH, REFERENCE_PATH, ROOT_LLMS_PATH, SKILL_PATH } from "../contract/discovery/links.js";

type Name = "devnet" | "indexer" | "api" | "worker";

/** Started after the devnet, in this order, when the file exists (later work adds them). */
const PROCESSES: [Name, string][] = [
  ["indexer", "scripts/indexer.ts"],
  ["api", "api/main.ts"],
  ["worker", "workers/main.ts"],
];
const READY_FILE = devnetReadyFile(config.DEPLOYMENTS_FILE);
const DEVNET_TIMEOUT_MS = 5 * 60_000;
const STOP_GRACE_MS = 10_000;

const colored = process.stdout.isTTY === true && !process.env.NO_COLOR;
const COLORS: Record<Name | "start", number> = { start: 1, devnet: 35, indexer: 36, api: 32, worker: 33 };
const label = (name: Name | "start") => {
  const text = `${name.padEnd(7)}|`;
  return colored ? `\x1b[${COLORS[name]}m${text}\x1b[0m` : text;
};
const say = (line: string) => console.log(`${label("start")} ${line}`);

const children = new Map<Name, ChildProcess>();
let stopping = false;
let embedded: Embedded | undefined;

/** Runs `node --import tsx <file>` (the API with its flags and environment) with its output prefixed by its name. Its death stops everything. */
function spawnChild(name: Name, file: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, [...(name === "api" ? API_NODE_FLAGS : []), "--import", "tsx", file], {
    cwd: repoRoot,
    env: { ...process.env, ...(colored ? { FORCE_COLOR: "1" } : {}), ...(name === "api" ? API_ENV : {}), ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: a terminal's Ctrl-C reaches only this supervisor, which then stops
    // the children itself, so a child's exit on Ctrl-C is never mistaken for a crash.
    detached: true,
  });
  children.set(name, child);
  const prefix = label(name);
  for (const [input, output] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    createInterface({ input, crlfDelay: Infinity }).on("line", (line) => output.write(`${prefix} ${line}\n`));
  }
  child.on("error", (error) => {
    children.delete(name);
    if (!stopping) say(`${name} could not start: ${error.message}`);
    void stop(1);
  });
  child.on("close", (code, signal) => {
    children.delete(name);
    if (stopping) return;
    say(`${name} died (${signal ? `signal ${signal}` : `exit code ${code}`}); stopping the others`);
    void stop(1);
  });
  return child;
}

function signalChild(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal); // the child's whole process group
  } catch {
    child.kill(signal);
  }
}

/** SIGTERM to every child, SIGKILL to those still running after 10 s, then exit. */
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (children.size > 0) say(`stopping ${[...children.keys()].join(", ")}`);
  for (const child of children.values()) signalChild(child, "SIGTERM");
  const deadline = Date.now() + STOP_GRACE_MS;
  while (children.size > 0 && Date.now() < deadline) await sleep(100);
  for (const [name, child] of children) {
    say(`${name} did not stop in ${STOP_GRACE_MS / 1000} s; killing it`);
    signalChild(child, "SIGKILL");
  }
  await embedded?.stop();
  process.exit(code);
}

/** The devnet deletes ready.json when it starts and writes it once deployed and seeded. */
async function waitForDevnet(url: string): Promise<boolean> {
  const deadline = Date.now() + DEVNET_TIMEOUT_MS;
  while (!stopping && Date.now() < deadline) {
    if (existsSync(READY_FILE)) {
      const read = await readChainId(url, 2000);
      if ("chainId" in read && read.chainId === CHAIN_ID) return true;
    }
    await sleep(500);
  }
  return false;
}

function printWallets(url: string): void {
  type Ready = { block?: number; accounts?: { index: number; address: string }[] };
  let ready: Ready = {};
  try {
    ready = JSON.parse(readFileSync(READY_FILE, "utf8")) as Ready;
  } catch {
    // Written by the devnet; without it there is just nothing more to print.
  }
  say(`devnet ready at ${url} (chain ${CHAIN_ID}${ready.block === undefined ? "" : `, block ${ready.block}`})`);
  if (!ready.accounts?.length) return;
  say(`test wallets (mnemonic "test test test test test test test test test test test junk"):`);
  for (const account of ready.accounts) say(`  #${account.index} ${account.address}`);
}

/** Where this machine reaches a server that listens on `host` (a wildcard address: on the loopback). */
const reach = (host: string, port: number) =>
  `http://${["0.0.0.0", "::", "[::]"].includes(host) ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host}:${port}`;

async function answers200(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200;
  } catch {
    return false;
  }
}

/** Once the indexer has its backfill, the API can read it and the worker runs: where everything is, once. */
async function announceReady(): Promise<void> {
  const api = reach(config.HOST, config.PORT);
  const checks = [
    `${reach(config.PONDER_HOST, config.PONDER_PORT)}/ready`,
    `${api}/ready`,
    ...(children.has("worker") ? [`${reach(config.METRICS_HOST, config.WORKER_METRICS_PORT)}/health`] : []),
  ];
  while (!stopping && children.has("api")) {
    if ((await Promise.all(checks.map(answers200))).every(Boolean)) {
      const base = config.BASE_URL;
      say(`ready: the API at ${base}`);
      say(`  docs     ${base}${SKILL_PATH} (agents), ${base}${OPENAPI_PATH}, ${base}${REFERENCE_PATH}, ${base}${ROOT_LLMS_PATH}`);
      say(`  MCP      ${base}${MCP_PATH} (Streamable HTTP; stdio: npm run mcp)`);
      say(`  GraphQL  ${reach(config.PONDER_HOST, config.PONDER_PORT)}/graphql (SQL at /sql; docs/analysts.md)`);
      if (config.QUEUE_DASHBOARD_USER && config.QUEUE_DASHBOARD_PASSWORD) say(`  queues   ${base}${QUEUE_DASHBOARD_PATH}`);
      // Paid runs (x402): on the devnet, the devnet's own facilitator; with RPC_URL, X402_FACILITATOR_URL.
      say(
        `  x402     ${config.X402_FACILITATOR_URL ? `facilitator ${redactUrl(config.X402_FACILITATOR_URL)}` : "no facilitator (set X402_FACILITATOR_URL): runs past 30 days answer 503"}`,
      );
      // On the devnet only: a real chain has no faucet.
      const faucet = devnetFaucetUrl(config);
      if (faucet) say(`  faucet   ${faucet}/fund (a new wallet's ETH, USDG and tokens: npm run fund -- <address> [USDG amount])`);
      return;
    }
    await sleep(500);
  }
}

async function main(): Promise<void> {
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  process.on("exit", () => children.forEach((child) => signalChild(child, "SIGKILL")));
  // Postgres and Redis left to their defaults and not running: an embedded Postgres, the machine's redis-server.
  try {
    embedded = await embeddedDefaults(process.env, { say, dataDir: join(config.EMBEDDED_DIR, "postgres") });
  } catch (error) {
    say((error as Error).message);
    process.exit(1);
  }
  Object.assign(process.env, embedded.env); // every child's environment
  await requireServices({ postgres: true, redis: true });

  if (usesDevnet(config)) {
    const url = rpcUrl(config);
    if ((await probeTcp(config.DEVNET_HOST, config.DEVNET_PORT, 1000)) === null) {
      say(`something already listens on ${url} (an old devnet?) — stop it, set RPC_URL to use it, or set DEVNET_PORT`);
      process.exit(1);
    }
    rmSync(READY_FILE, { force: true }); // never mistake an old run's file for this one's
    // The devnet keeps its chain between runs (on anvil), so a next start skips deploy, seeding and the
    // index's backfill; every child reads the same setting (the indexer checks a reused chain's blocks).
    process.env.DEVNET_STATE_FILE ??= devnetStateFile(config.DEPLOYMENTS_FILE);
    const stateFile = process.env.DEVNET_STATE_FILE;
    say(
      stateFile === "off"
        ? "a new devnet chain (DEVNET_STATE_FILE=off)"
        : `the devnet keeps its chain in ${stateFile} for the next start (DEVNET_STATE_FILE=off: a new one every start)`,
    );
    spawnChild("devnet", "devnet/main.ts");
    say(`waiting for the devnet to deploy and seed (up to ${DEVNET_TIMEOUT_MS / 60_000} minutes)`);
    if (!(await waitForDevnet(url))) {
      if (!stopping) say(`the devnet was not ready after ${DEVNET_TIMEOUT_MS / 60_000} minutes; giving up`);
      return stop(1);
    }
    printWallets(url);
  } else {
    say(`chain: ${redactUrl(config.RPC_URL!)}`);
    // Once here rather than once per child: a wrong chain id exits with one line.
    await requireChain(config.RPC_URL!);
  }

  for (const [name, file] of PROCESSES) {
    if (stopping) return;
    if (existsSync(join(repoRoot, file))) spawnChild(name, file);
    else say(`${file} does not exist yet; no ${name}`);
  }
  if (children.size === 0) {
    say("nothing to run");
    process.exit(1);
  }
  if (children.has("api")) void announceReady();
}

await main();
