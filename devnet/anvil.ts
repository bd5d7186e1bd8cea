// Anvil (Foundry's node, from npm: @foundry-rs/anvil and its platform package) as a chain 4663 beside the
// in-process EDR devnet. EDR has no `callTracer`; anvil answers debug_traceTransaction and
// debug_traceBlockByNumber/ByHash with it, so the indexer's call-trace path (CALL_TRACES=on) runs on it. It
// runs as a child process on a free port, with the test mnemonic's first `accounts` accounts unlocked (the
// deployer and keeper roles among them), so the devnet's deploy code (devnet/deploy/) runs on it over HTTP.
// No state file unless asked: `dumpState` writes the chain on exit, `loadState` starts from one.
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { http, type EIP1193Provider } from "viem";
import { CHAIN_ID } from "../domain/chain.js";
import { clientsFor, devnetChain, roles, TEST_MNEMONIC, type ChainClients } from "./chain.js";

export type StartAnvilParameters = {
  host?: string;
  /** Default: a free port. */
  port?: number;
  /** The genesis block's time (unix seconds); default: now. */
  genesisTime?: number;
  /** Unlocked accounts of the test mnemonic, from index 0 (default: up to the service's roles). */
  accounts?: number;
  /** Writes the chain's state to this file when anvil exits (`--dump-state`). */
  dumpState?: string;
  /** Starts from the state in this file (`--load-state`). */
  loadState?: string;
  /** Loads this file if it exists and writes the chain to it on exit (`--state`). */
  state?: string;
  /** Extra command-line arguments. */
  extraArgs?: string[];
  /** Each line anvil prints. */
  onLine?: (line: string) => void;
};

export type Anvil = ChainClients & {
  url: string;
  process: ChildProcess;
  /** Stops anvil; true when it exited on its own (code 0), having written its state file if it keeps one. */
  close(): Promise<boolean>;
};

const BLOCK_HASH_HISTORY = "0x0000F90827F1C53a10cb7a02335b175320002935";

const PLATFORM_ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

/** The anvil binary of this platform: the platform package @foundry-rs/anvil depends on. */
export function anvilBinary(): string {
  const wrapper = fileURLToPath(import.meta.resolve("@foundry-rs/anvil/package.json"));
  const arch = PLATFORM_ARCH[process.arch];
  if (!arch || (process.platform !== "linux" && process.platform !== "darwin")) throw new Error(`no anvil package for ${process.platform}-${process.arch}`);
  const pkg = createRequire(wrapper).resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
  return join(dirname(pkg), "bin", "anvil");
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts anvil on chain 4663 (Prague rules) and resolves once it answers eth_chainId. */
export async function startAnvil(params: StartAnvilParameters = {}): Promise<Anvil> {
  const host = params.host ?? "127.0.0.1";
  const port = params.port ?? (await freePort(host));
  const args = [
    ...["--chain-id", String(CHAIN_ID), "--hardfork", "prague", "--host", host, "--port", String(port)],
    ...["--mnemonic", TEST_MNEMONIC, "--accounts", String(params.accounts ?? roles.facilitator + 1)],
    ...(params.genesisTime === undefined ? [] : ["--timestamp", String(params.genesisTime)]),
    ...(params.dumpState ? ["--dump-state", params.dumpState] : []),
    ...(params.loadState ? ["--load-state", params.loadState] : []),
    ...(params.state ? ["--state", params.state] : []),
    ...(params.extraArgs ?? []),
  ];
  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 50) output.shift();
      params.onLine?.(line);
    }
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // A SIGTERM was seen to go unanswered once (with --state, perhaps during a save): ask again, then kill.
  const close = async () => {
    for (let i = 0; i < 6 && child.exitCode === null && child.signalCode === null; i++) {
      child.kill(i < 5 ? "SIGTERM" : "SIGKILL");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    }
    await exited;
    return child.exitCode === 0;
  };
  const url = `http://${host}:${port}`;
  const transport = http(url, { retryCount: 0 })({ chain: devnetChain });
  const provider = { request: transport.request } as EIP1193Provider;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`anvil exited at start:\n${output.join("\n")}`);
    const chainId = await provider.request({ method: "eth_chainId" }).catch(() => undefined);
    if (chainId !== undefined) {
      if (Number(chainId) !== CHAIN_ID) throw new Error(`anvil answered chain ${Number(chainId)}, not ${CHAIN_ID}`);
      break;
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`anvil did not answer on ${url} in 30 s:\n${output.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // EIP-2935's history contract (Prague) takes a new storage slot at every block, and anvil hashes the whole
  // state at every block: over a 90-day seed those slots became two thirds of the storage and the hashing
  // most of anvil's time (seeding 33 s, 24 s with its code emptied). No contract of the service reads it; the
  // BLOCKHASH opcode does not use it. Emptied at every start (a loaded chain's is already empty).
  await provider.request({ method: "anvil_setCode", params: [BLOCK_HASH_HISTORY, "0x"] } as never);
  return { ...clientsFor(provider, "anvil"), provider, url, process: child, close };
}
