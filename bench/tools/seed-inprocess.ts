// Seeds the devnet history in this process, on a fixed clock, and prints its wall and CPU time: the tool
// behind the seeding numbers in bench/README.md (the devnet process of bench/devnet-seed.ts does the same
// work behind JSON-RPC). Options, from the environment:
//   DAYS=90          history length
//   NOW=1790000000   the clock (unix seconds) the history ends at; fixed, so two runs seed the same history
//   OUT=file.json    also write every log of the history (address, topics, data, block time) to a file,
//                    to compare two versions of the devnet code log by log
//   ROOT=/path       seed with the devnet code of another checkout (e.g. `git archive HEAD | tar -x -C /tmp/orig`
//                    and a node_modules link), for before/after figures on the same machine and clock
//   ENGINE=edr22     run on EDR 0.22 instead of Hardhat 2's EDR (see tools/edr22-chain.ts)
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = process.env.ROOT ?? fileURLToPath(new URL("../..", import.meta.url));
const days = Number(process.env.DAYS ?? 90);
const now = Number(process.env.NOW ?? 1_790_000_000);
const DAY = 86400;
const { startChain } = await import(`${root}/devnet/chain.ts`);
const { compileContracts } = await import(`${root}/devnet/compile.ts`);
const { deployAll } = await import(`${root}/devnet/deploy/all.ts`);
const { deployContext } = await import(`${root}/devnet/deploy/context.ts`);
const { keeperSources } = await import(`${root}/devnet/keeper/all.ts`);
const { MarketSimulator } = await import(`${root}/devnet/market.ts`);
const { seedActivity } = await import(`${root}/devnet/seed/activity.ts`);
const { seedHistory } = await import(`${root}/devnet/seed/history.ts`);

const artifacts = compileContracts();
const genesisTime = now - days * DAY - 3 * 3600;
const chain = process.env.ENGINE === "edr22" ? await (await import("./edr22-chain.js")).startChain22({ genesisTime }) : await startChain({ genesisTime });
const ctx = deployContext(chain, artifacts);
const d = await deployAll(ctx);
const startBlock = await chain.publicClient.getBlockNumber();
const market = new MarketSimulator(ctx, d.contracts.marketMaker!, d.tokens);
const t0 = performance.now();
const c0 = process.cpuUsage();
const steps = await seedHistory(ctx, d, market, { from: now - days * DAY, to: now, keeper: keeperSources(ctx, d), activity: seedActivity(ctx, d, market) });
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
const blocks = (await chain.publicClient.getBlockNumber()) - startBlock;
console.log(
  `engine=${process.env.ENGINE ?? "hardhat-edr"} root=${root} days=${days} steps=${steps} blocks=${blocks} ` +
    `wall=${(ms / 1000).toFixed(1)} s cpu=${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (system ${(cpu.system / 1e6).toFixed(1)} s)`,
);
if (process.env.OUT) {
  const logs = (await chain.publicClient.request({
    method: "eth_getLogs",
    params: [{ fromBlock: `0x${(startBlock + 1n).toString(16)}`, toBlock: "latest" }],
  } as never)) as {
    blockNumber: string;
    address: string;
    topics: string[];
    data: string;
  }[];
  const times = new Map<string, number>();
  const out = [];
  for (const l of logs) {
    if (!times.has(l.blockNumber)) times.set(l.blockNumber, Number((await chain.publicClient.getBlock({ blockNumber: BigInt(l.blockNumber) })).timestamp));
    out.push({ t: times.get(l.blockNumber), address: l.address, topics: l.topics, data: l.data });
  }
  writeFileSync(process.env.OUT, JSON.stringify(out));
  console.log(`wrote ${out.length} logs to ${process.env.OUT}`);
}
process.exit(0);
