// Market tokens as the order, grid and ladder-strategy resolvers name them (by address or a verified
// symbol, 422 UNKNOWN_TOKEN otherwise), their pools on the market registry and their price now.
import { erc20Abi, getAddress, isAddress, zeroAddress, type Address } from "viem";
import { marketRegistryAbi } from "../../../abis/index.js";
import type { DeployedToken } from "../../../adapters/chain/deployments.js";
import { sameAddress } from "../../../domain/address.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext } from "../types.js";
import { contract } from "./contracts.js";
import { deployedToken } from "../../../adapters/chain/aggregator-tokens.js";
import { readChartedToken } from "../../../adapters/db/reads/tokens.js";

/** A market token as the order, grid and ladder-strategy resolvers use it. */
export type MarketToken = Pick<DeployedToken, "address" | "symbol" | "decimals">;

const unknownToken = (token: string, why: string) => new ApiError("UNKNOWN_TOKEN", `${token} ${why}`, { token });

/**
 * A market token (not USDG) by address or symbol: the deployments' tokens first, then the indexed
 * projection (a market opened after the deployments file was written), then, for an address the index
 * has not reached yet, the chain (the registry's pool, the token's decimals and symbol). A symbol names
 * only a verified token (an unverified one's symbol is its own): 422 UNKNOWN_TOKEN, give the address.
 * An address with no market is 422 MARKET_NOT_OPEN; one that is no token, UNKNOWN_TOKEN.
 */
export async function marketTokenOf(ctx: PrepareContext, input: string): Promise<MarketToken> {
  const usdg = ctx.deployments.contracts.usdg ?? zeroAddress;
  const byAddress = isAddress(input, { strict: false });
  if (byAddress && sameAddress(input, usdg)) throw unknownToken(input, "is USDG, the quote of every market: name the other token");
  const deployed = deployedToken(ctx.deployments, input);
  if (deployed) {
    if (sameAddress(deployed.address, usdg)) throw unknownToken(input, "is USDG, the quote of every market: name the other token");
    return { address: getAddress(deployed.address), symbol: deployed.symbol, decimals: deployed.decimals };
  }
  const row = await indexedToken(ctx, input, byAddress);
  if (row && !sameAddress(row.address, usdg)) return row;
  if (!byAddress) throw unknownToken(input, "is not a listed market token's symbol: give the token's address");
  const address = getAddress(input);
  const [pool, decimals, symbol] = await Promise.all([
    ctx.client.readContract({ address: contract(ctx, "markets"), abi: marketRegistryAbi, functionName: "poolOf", args: [address] }),
    ctx.client.readContract({ address, abi: erc20Abi, functionName: "decimals" }).catch(() => undefined),
    ctx.client.readContract({ address, abi: erc20Abi, functionName: "symbol" }).catch(() => undefined),
  ]);
  if (decimals === undefined) throw unknownToken(address, "is not a token on this chain");
  // Messages name an unindexed token by address: its own symbol proves nothing.
  if (pool === zeroAddress) throw new ApiError("MARKET_NOT_OPEN", `${address} has no open market`, { token: address });
  return { address, symbol: symbol ?? address, decimals };
}

/** A charted token of the index (PoolCreated writes symbol and decimals), or undefined: also when the
 *  index cannot be read (views not made yet), so an address still resolves from the chain. */
async function indexedToken(ctx: PrepareContext, input: string, byAddress: boolean): Promise<MarketToken | undefined> {
  try {
    const row = await readChartedToken(ctx.reads, input, byAddress);
    return row && { address: getAddress(row.address), symbol: row.symbol, decimals: row.decimals };
  } catch {
    return undefined;
  }
}

/** The token's pool on the market registry, or 422 MARKET_NOT_OPEN. */
export async function openPool(ctx: PrepareContext, token: MarketToken): Promise<Address> {
  const pool = await ctx.client.readContract({ address: contract(ctx, "markets"), abi: marketRegistryAbi, functionName: "poolOf", args: [token.address] });
  if (pool === zeroAddress) throw new ApiError("MARKET_NOT_OPEN", `${token.symbol} has no open market`, { token: token.address });
  return pool;
}

/** The registry's price now (USDG per whole token, 18 decimals). */
export async function priceNow(ctx: PrepareContext, token: Address): Promise<bigint> {
  return ctx.client.readContract({ address: contract(ctx, "markets"), abi: marketRegistryAbi, functionName: "priceX18", args: [token] });
}
