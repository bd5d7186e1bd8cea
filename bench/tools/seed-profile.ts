// Where seeding the history spends its time: seeds DAYS (default 10) of history in this process and
// prints wall and CPU time per phase (market moves, keeper reads, user activity, sends) and per JSON-RPC
// method (eth_call by selector). Phases overlap where the code runs them concurrently (the keeper's
// sources), so their times do not add up. For an EVM-level view, add `node --cpu-prof`.
import { clientsFor, startChain } from "../../devnet/chain.js";
import { compileContracts } from "../../devnet/compile.js";
import { deployAll } from "../../devnet/deploy/all.js";
import { deployContext } from "../../devnet/deploy/context.js";
import { keeperSources } from "../../devnet/keeper/all.js";
import { MarketSimulator } from "../../devnet/market.js";
import { seedActivity } from "../../devnet/seed/activity.js";
import { seedHistory } from "../../devnet/seed/history.js";

const days = Number(process.env.DAYS ?? 10);
const DAY = 86400;
const artifacts = compileContracts();
const now = Math.floor(Date.now() / 1000);
const chain = await startChain({ genesisTime: now - days * DAY - 3 * 3600 });
const rpc = new Map<string, { n: number; ms: number }>();
const request = chain.provider.request.bind(chain.provider);
(chain.provider as { request: unknown }).request = async (args: { method: string; params?: { data?: string }[] }) => {
  const t = performance.now();
  try {
    return await request(args as never);
  } finally {
    const key = args.method === "eth_call" ? `eth_call ${(args.params?.[0]?.data ?? "").slice(0, 10)}` : args.method;
    const s = rpc.get(key) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += performance.now() - t;
    rpc.set(key, s);
  }
};
// The clients of startChain hold the provider's original request: make them anew over the wrapper.
Object.assign(chain, clientsFor(chain.provider));
const ctx = deployContext(chain, artifacts);
const d = await deployAll(ctx);
rpc.clear();
const market = new MarketSimulator(ctx, d.contracts.marketMaker!, d.tokens);
const keeper = keeperSources(ctx, d);
const phases = new Map<string, { wall: number; cpu: number }>();
const timed =
  <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) =>
  async (...a: A): Promise<R> => {
    const t = performance.now();
    const c = process.cpuUsage();
    try {
      return await f(...a);
    } finally {
      const u = process.cpuUsage(c);
      const p = phases.get(name) ?? { wall: 0, cpu: 0 };
      p.wall += performance.now() - t;
      p.cpu += (u.user + u.system) / 1000;
      phases.set(name, p);
    }
  };
market.step = timed("market move (swapMany)", market.step.bind(market));
ctx.send = timed("all sends (market, keeper, users)", ctx.send);
const sources = {
  fills: keeper.fills.map((f) => timed("keeper: strategy fills (reads)", f)),
  upkeep: keeper.upkeep.map((f) => timed("keeper: upkeep (reads)", f)),
};
const t0 = performance.now();
const c0 = process.cpuUsage();
const steps = await seedHistory(ctx, d, market, {
  from: now - days * DAY,
  to: now,
  keeper: sources,
  activity: timed("user activity", seedActivity(ctx, d, market)),
});
const total = performance.now() - t0;
const cpu = process.cpuUsage(c0);
console.log(
  `${days} days, ${steps} steps: wall ${(total / 1000).toFixed(1)} s (${(total / steps).toFixed(1)} ms/step), CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (system ${(cpu.system / 1e6).toFixed(1)} s)`,
);
for (const [k, v] of phases) console.log(`  ${k.padEnd(36)} wall ${(v.wall / 1000).toFixed(2).padStart(7)} s   CPU ${(v.cpu / 1000).toFixed(2).padStart(7)} s`);
console.log("JSON-RPC by method (wall, summed):");
for (const [k, v] of [...rpc].sort((a, b) => b[1].ms - a[1].ms).slice(0, 20))
  console.log(`  ${k.padEnd(28)} ${String(v.n).padStart(7)} calls ${(v.ms / 1000).toFixed(2).padStart(7)} s  ${(v.ms / v.n).toFixed(2)} ms/call`);
process.exit(0);
