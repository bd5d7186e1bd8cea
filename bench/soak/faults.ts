// The soak's faults, each as production brings it, and the window each one opens: from its start until
// every process answers its health again (the end of the injected outage the invariants measure from).
import type { Redis } from "ioredis";
import type { Hex } from "viem";
import type { RedisServer } from "../../test/helpers/redis-server.js";
import type { TcpProxy } from "../../test/helpers/tcp-proxy.js";
import { jsonRpc as rpc } from "../../test/helpers/json-rpc.js";
import type { OwnPostgres, Supervised } from "./procs.js";

export const FAULTS = ["stall-rpc", "kill-api", "kill-worker-mid-grading", "reorg-3", "restart-redis", "restart-postgres", "kill-indexer"] as const;
export type FaultName = (typeof FAULTS)[number];
export type FaultWindow = { name: FaultName; start: number; end: number; note: string };

export type FaultDeps = {
  rpcUrl: string;
  proxy: TcpProxy;
  pg: OwnPostgres;
  redis: RedisServer;
  /** A connection to the soak's Redis (for the grading queue's active list). */
  monitorRedis: Redis;
  redisPrefix: string;
  apis: Supervised[];
  worker: Supervised;
  indexer: Supervised;
  /** Resolves once every process answers its health (or `timeoutMs` passes). */
  healthy(timeoutMs: number): Promise<boolean>;
  say(line: string): void;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The times (ms from the start of traffic) of the faults: spread over the run after the warm-up, before its last 15%. */
export function faultSchedule(runMs: number, warmupMs: number, only?: string[]): { at: number; name: FaultName }[] {
  const names = FAULTS.filter((f) => !only || only.includes(f));
  const from = warmupMs;
  const to = runMs * 0.85;
  // Each fault once per `names.length` slots; a longer run repeats the series (every fault at least once).
  const rounds = Math.max(1, Math.floor((to - from) / (names.length * 5 * 60_000)));
  const slots = names.length * rounds;
  return Array.from({ length: slots }, (_, i) => ({ at: from + ((to - from) * i) / slots, name: names[i % names.length]! }));
}

export async function injectFault(name: FaultName, f: FaultDeps): Promise<FaultWindow> {
  const start = Date.now();
  let note = "";
  f.say(`fault: ${name}`);
  switch (name) {
    case "stall-rpc":
      // Every byte to the devnet held 30 s: the services' RPC hangs, as a stalled node's does.
      f.proxy.delayMs = 30_000;
      await sleep(30_000);
      f.proxy.delayMs = 0;
      break;
    case "kill-api":
      f.apis[0]!.kill();
      note = f.apis[0]!.name;
      break;
    case "kill-worker-mid-grading":
      note = await killWorkerMidPass(f);
      break;
    case "reorg-3":
      note = await reorg(f.rpcUrl);
      break;
    case "restart-redis":
      await f.redis.kill();
      await f.redis.start();
      break;
    case "restart-postgres":
      await f.pg.restart();
      break;
    case "kill-indexer":
      f.indexer.kill();
      break;
  }
  await sleep(2000); // a killed process is seen dead before health is asked
  const ok = await f.healthy(5 * 60_000);
  if (!ok) note += `${note ? "; " : ""}not healthy again after 5 minutes`;
  const w = { name, start, end: Date.now(), note };
  f.say(`fault: ${name} over in ${((w.end - w.start) / 1000).toFixed(1)} s${note ? ` (${note})` : ""}`);
  return w;
}

/** Waits (up to 90 s) for a grading job on the active list, then SIGKILLs the worker. */
async function killWorkerMidPass(f: FaultDeps): Promise<string> {
  const key = `${f.redisPrefix}:bull:grading:active`;
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    const n = await f.monitorRedis.llen(key).catch(() => 0);
    if (n > 0) {
      f.worker.kill();
      return "killed with a grading pass active";
    }
    await sleep(20);
  }
  f.worker.kill();
  return "no grading pass seen active in 90 s; killed anyway";
}

/** A 3-block branch with a mint in it, taken away: evm_snapshot, 3 blocks, evm_revert, 4 other blocks. */
async function reorg(rpcUrl: string): Promise<string> {
  const base = Number(BigInt(await rpc<Hex>(rpcUrl, "eth_blockNumber")));
  const snapshot = await rpc<Hex>(rpcUrl, "evm_snapshot");
  for (let i = 0; i < 3; i++) await rpc(rpcUrl, "evm_mine");
  await sleep(4000); // long enough for the indexer (and the polling agents) to take the branch in
  await rpc(rpcUrl, "evm_revert", [snapshot]);
  for (let i = 0; i < 4; i++) await rpc(rpcUrl, "evm_mine");
  return `from block ${base}`;
}
