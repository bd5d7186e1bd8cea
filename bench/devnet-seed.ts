// Benchmark 1: `npm run devnet` with the full 90 days of history, as a process of its own (free port,
// temporary deployments file). Prints the times the devnet logs (deploy, seed, ready), the steps and
// blocks of the history, and the devnet's CPU time (the wall time depends on what else the machine runs).
// Alone: `npx tsx bench/devnet-seed.ts` (DEVNET_HISTORY_DAYS changes the history's length).
import { readFileSync } from "node:fs";
import { isMain, log, printMachine, printResult, saveResult, startDevnet, type BenchResult, type Devnet } from "./lib.js";

export const SEED_TARGET_S = 60;

export async function benchDevnetSeed({ days = 90, keep = false }: { days?: number; keep?: boolean } = {}): Promise<{ result: BenchResult; devnet?: Devnet }> {
  log(`devnet-seed: starting a devnet with ${days} days of history`);
  const devnet = await startDevnet({ days });
  const t = devnet.times;
  const { startBlock } = JSON.parse(readFileSync(devnet.deploymentsFile, "utf8")) as { startBlock: number };
  const historyBlocks = t.block! - startBlock + 1;
  const result: BenchResult = {
    name: "devnet-seed",
    figures: [
      { name: "deploy (from process start: compile, boot, deploy)", value: t.deployS!, unit: "s" },
      {
        name: `seed ${days} days of history`,
        value: t.seedS!,
        unit: "s",
        ...(days === 90 ? { target: `< ${SEED_TARGET_S} s`, pass: t.seedS! < SEED_TARGET_S } : {}),
      },
      { name: "ready (from process start)", value: t.readyS!, unit: "s" },
      { name: "history steps", value: t.steps! },
      { name: "history blocks (deployment to head)", value: historyBlocks },
      { name: "seeding per step", value: (t.seedS! * 1000) / t.steps!, unit: "ms" },
      { name: "devnet CPU time at ready (user + system)", value: devnet.cpuAtReadyS ?? NaN, unit: "s" },
    ],
    notes: [`chain head at ready: block ${t.block}; deployments from block ${startBlock}`],
  };
  if (!keep) await devnet.stop();
  return { result, devnet: keep ? devnet : undefined };
}

if (isMain(import.meta.url)) {
  printMachine();
  const days = Number(process.env.DEVNET_HISTORY_DAYS ?? 90);
  const { result } = await benchDevnetSeed({ days });
  printResult(result);
  saveResult(result);
  process.exit(0);
}
