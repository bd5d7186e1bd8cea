// Runs the keeper's due calls of every family in one MarketMaker batch transaction.
import type { Address, Hex } from "viem";
import { marketMakerAbi } from "../../abis/index.js";
import type { DeployContext } from "../deploy/context.js";

export type KeeperCall = { target: Address; data: Hex };
/** A family's keeper: the calls due now. */
export type KeeperSource = () => Promise<KeeperCall[]>;

export async function runKeeper(ctx: DeployContext, marketMaker: Address, sources: KeeperSource[]): Promise<number> {
  const calls = (await Promise.all(sources.map((s) => s()))).flat();
  if (calls.length === 0) return 0;
  await ctx.send(marketMaker, marketMakerAbi, "executeBatch", [calls.map((c) => c.target), calls.map((c) => c.data)], ctx.keeper);
  return calls.length;
}
