// Strategies family: the limit-order hook, the grid strategy, the ladder strategy and the agent-account
// factory, deployed in this fixed order. Most tokens are listed as ladder markets; one listed market is
// left closed and one token unlisted, so the refusals can be met on the devnet.
import type { Address } from "viem";
import { agentAccountFactoryAbi, ladderStrategyAbi } from "../../abis/index.js";
import type { CoreDeployment } from "./core.js";
import type { DeployContext } from "./context.js";

const USDG = 10n ** 6n;

/** The family's settings (fees in basis points, minimums in USDG base units). */
export const strategyParams = {
  limitOrder: { feeBps: 20, minOrderUsdg: 10n * USDG },
  grid: { feeBps: 30, minAmountUsdg: 10n * USDG },
  ladder: { feeBps: 30, minFirstLegUsdg: 10n * USDG, minFollowUpUsdg: 5n * USDG },
  /** Not listed as a ladder market (NOT_LISTED). */
  ladderUnlisted: "SCAM",
  /** Listed as a pausable ladder market, and left closed (MARKET_NOT_OPEN). */
  ladderClosed: "tsSPY",
} as const;

export type StrategyDeployment = {
  limitOrderHook: Address;
  gridStrategy: Address;
  ladderStrategy: Address;
  agentAccountFactory: Address;
};

export async function deployStrategies(ctx: DeployContext, core: CoreDeployment): Promise<StrategyDeployment> {
  const { admin } = ctx;
  const p = strategyParams;
  const limitOrderHook = await ctx.deploy("LimitOrderHook", [core.markets, admin, p.limitOrder.feeBps, p.limitOrder.minOrderUsdg]);
  const gridStrategy = await ctx.deploy("GridStrategy", [core.markets, admin, p.grid.feeBps, p.grid.minAmountUsdg]);
  const ladderStrategy = await ctx.deploy("LadderStrategy", [core.markets, admin, p.ladder.feeBps, p.ladder.minFirstLegUsdg, p.ladder.minFollowUpUsdg]);
  const agentAccountFactory = await ctx.deploy("AgentAccountFactory", [ladderStrategy, admin]);
  await ctx.send(agentAccountFactory, agentAccountFactoryAbi, "setEnabled", [true]);

  // Ladder markets: every token with a pool but the unlisted one; stock tokens keep market hours (pausable).
  for (const t of core.tokens) {
    if (!t.pool || t.symbol === p.ladderUnlisted) continue;
    await ctx.send(ladderStrategy, ladderStrategyAbi, "listMarket", [t.address, t.category === "stock"]);
  }
  const closed = core.tokens.find((t) => t.symbol === p.ladderClosed);
  if (closed) await ctx.send(ladderStrategy, ladderStrategyAbi, "setMarketOpen", [closed.address, false]);

  return { limitOrderHook, gridStrategy, ladderStrategy, agentAccountFactory };
}
