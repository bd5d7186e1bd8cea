// Seeds history fast: blocks with timestamps stepped from the genesis (90 days ago) to now, each step
// moving every market in one transaction and running the keeper in a second, plus scripted user activity.
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { DeployContext } from "../deploy/context.js";
import { runKeeper, type KeeperSource } from "../keeper/run.js";
import { trackStrategyKeeper } from "../keeper/strategies.js";
import type { MarketSimulator } from "../market.js";
import { historySteps } from "./price-paths.js";

export type SeedOptions = {
  from: number;
  to: number;
  keeper: { fills: KeeperSource[]; upkeep: KeeperSource[] };
  /** User actions due at a step (index, timestamp); each is sent at its own timestamp after the step. */
  activity?: (step: number, timestamp: number, next: () => Promise<void>) => Promise<void>;
  onProgress?: (done: number, total: number) => void;
};

export async function seedHistory(ctx: DeployContext, d: Deployments, market: MarketSimulator, opts: SeedOptions) {
  const steps = historySteps(opts.from, opts.to);
  // Every transaction of the history goes through ctx.send: the market and the strategy keeper keep
  // what they read (pools' reserves; orders, grids and ladders) up to date from the receipts rather than
  // reading it all again at every step.
  await market.trackReserves(true);
  trackStrategyKeeper(ctx, true);
  try {
    await seedSteps(ctx, d, market, opts, steps);
  } finally {
    ctx.setNextTimestamp(undefined); // a step's time that no transaction took must not reach the live chain's
    trackStrategyKeeper(ctx, false);
    await market.trackReserves(false);
  }
  return steps.length;
}

async function seedSteps(ctx: DeployContext, d: Deployments, market: MarketSimulator, opts: SeedOptions, steps: number[]) {
  let previous = opts.from;
  for (const [i, t] of steps.entries()) {
    let clock = t;
    // The next transaction's block time: set on the chain with that transaction (a step's keeper often sends none).
    const tick = async () => ctx.setNextTimestamp(clock++);
    await tick();
    await market.step((t - previous) / 3600);
    previous = t;
    await tick();
    // Fills follow every move; upkeep (settling, harvests, basket arbitrage) runs every 6 hours over the
    // old history and hourly over the last week, which keeps seeding fast and vault history fine where read.
    const upkeepEvery = t < opts.to - 7 * 86400 ? 6 * 3600 : 3600;
    const sources = t % upkeepEvery === 0 ? [...opts.keeper.fills, ...opts.keeper.upkeep] : opts.keeper.fills;
    // An empty batch sends nothing: reuse the timestamp for the next transaction.
    if ((await runKeeper(ctx, d.contracts.marketMaker!, sources)) === 0) clock--;
    if (opts.activity) await opts.activity(i, t, tick);
    if (i % 200 === 0 || i === steps.length - 1) opts.onProgress?.(i + 1, steps.length);
  }
}
