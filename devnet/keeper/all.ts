// The keeper of every family, as sources of due calls for one MarketMaker batch.
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { DeployContext } from "../deploy/context.js";
import { basketKeeperCalls } from "./baskets.js";
import type { KeeperSource } from "./run.js";
import { strategyKeeperCalls } from "./strategies.js";
import { vaultKeeperCalls } from "./vaults.js";

/**
 * `fills`: orders, grids and ladders that the market crossed (due after every price move).
 * `upkeep`: vault settlements, harvests and rebalances, and basket arbitrage (due every so often).
 */
export function keeperSources(ctx: DeployContext, d: Deployments): { fills: KeeperSource[]; upkeep: KeeperSource[] } {
  const c = d.contracts;
  return {
    fills: [
      () =>
        strategyKeeperCalls(ctx, {
          limitOrderHook: c.limitOrderHook!,
          gridStrategy: c.gridStrategy!,
          ladderStrategy: c.ladderStrategy!,
          agentAccountFactory: c.agentAccountFactory!,
        }),
    ],
    upkeep: [
      () => vaultKeeperCalls(ctx, { vaults: d.vaults }),
      () => basketKeeperCalls(ctx, { basketRegistry: c.basketRegistry!, baskets: d.baskets, marketMaker: c.marketMaker! }),
    ],
  };
}
