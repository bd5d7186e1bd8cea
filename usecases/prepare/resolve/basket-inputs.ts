// The basket and the token a basket trade names, resolved: the basket by pool address or listed symbol
// (404 UNKNOWN_BASKET otherwise), its pool's state, the paid or received token (USDG, WETH or one of the
// basket's; 422 NATIVE_ETH_IN, BAD_TOKEN) and the token checks (422 TOKEN_FROZEN, TOKEN_PAUSED).
import { getAddress, isAddress, parseAbi, type Address } from "viem";
import { basketPoolAbi, basketRegistryAbi, testTokenAbi } from "../../../abis/index.js";
import { isNativeEth, knownToken } from "../../../adapters/chain/aggregator-tokens.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext } from "../types.js";
import { contract } from "./contracts.js";
import { sameAddress } from "../../../domain/address.js";
import { CHAIN_ID } from "../../../domain/chain.js";
import { readListedBasketAddress } from "../../../adapters/db/reads/baskets.js";

export type BasketTarget = { pool: Address; symbol: string; listed: boolean; sellOnly: boolean };

export type PoolState = { tokens: Address[]; weights: bigint[]; balances: bigint[]; supply: bigint; paused: boolean };

/**
 * A basket by pool address (any registered one) or listed symbol; 404 UNKNOWN_BASKET otherwise, or 404
 * NOT_FOUND for an address with no contract at all.
 */
export async function resolveBasket(ctx: PrepareContext, input: string): Promise<BasketTarget> {
  const registry = contract(ctx, "basketRegistry");
  let pool: Address;
  if (isAddress(input, { strict: false })) {
    pool = getAddress(input);
  } else {
    const indexed = await readListedBasketAddress(ctx.reads, input);
    const deployed = ctx.deployments.baskets.find((b) => b.listed && b.symbol.toLowerCase() === input.toLowerCase());
    const found = indexed ?? deployed?.address;
    if (!found) throw new ApiError("UNKNOWN_BASKET", `${input} is not a listed basket's symbol: give the basket's address`);
    pool = getAddress(found);
  }
  const [registered, listed, sellOnly] = await Promise.all([
    ctx.client.readContract({ address: registry, abi: basketRegistryAbi, functionName: "isRegistered", args: [pool] }),
    ctx.client.readContract({ address: registry, abi: basketRegistryAbi, functionName: "isListed", args: [pool] }),
    ctx.client.readContract({ address: registry, abi: basketRegistryAbi, functionName: "isSellOnly", args: [pool] }),
  ]);
  if (!registered) {
    // Nothing at all at the address is 404 NOT_FOUND; a contract the registry does not know, UNKNOWN_BASKET.
    const code = await ctx.client.getCode({ address: pool });
    if (!code || code === "0x")
      throw new ApiError("NOT_FOUND", `Nothing is deployed at ${pool} on chain ${CHAIN_ID}: give a basket's address or a listed basket's symbol`);
    throw new ApiError("UNKNOWN_BASKET", `${pool} is not a basket`);
  }
  const symbol = await ctx.client.readContract({ address: pool, abi: basketPoolAbi, functionName: "symbol" });
  return { pool, symbol, listed, sellOnly };
}

export async function poolState(ctx: PrepareContext, pool: Address): Promise<PoolState> {
  const read = <F extends "getTokens" | "getNormalizedWeights" | "getBalances" | "totalSupply" | "paused">(functionName: F) =>
    ctx.client.readContract({ address: pool, abi: basketPoolAbi, functionName } as never) as Promise<unknown>;
  const [tokens, weights, balances, supply, paused] = await Promise.all([
    read("getTokens"),
    read("getNormalizedWeights"),
    read("getBalances"),
    read("totalSupply"),
    read("paused"),
  ]);
  return {
    tokens: (tokens as Address[]).map((t) => getAddress(t)),
    weights: weights as bigint[],
    balances: balances as bigint[],
    supply: supply as bigint,
    paused: paused as boolean,
  };
}

export type BasketToken = { address: Address; symbol: string; decimals: number };

/** Symbol and decimals of a token the deployments know (USDG, listed or devnet tokens), else from the chain. */
export async function tokenInfo(ctx: PrepareContext, address: Address): Promise<BasketToken> {
  const known = knownToken(ctx.deployments, address);
  if (known) return { address, symbol: known.symbol, decimals: known.decimals };
  const [symbol, decimals] = await Promise.all([
    ctx.client.readContract({ address, abi: testTokenAbi, functionName: "symbol" }),
    ctx.client.readContract({ address, abi: testTokenAbi, functionName: "decimals" }),
  ]);
  return { address, symbol, decimals };
}

/**
 * The paid (or received) token: USDG by default, WETH, or one of the basket's tokens by symbol or
 * address. ETH is 422 NATIVE_ETH_IN (when paying); anything else 422 BAD_TOKEN.
 */
export async function basketSideToken(ctx: PrepareContext, input: string | undefined, basketTokens: readonly Address[], paying: boolean): Promise<BasketToken> {
  const usdg = getAddress(contract(ctx, "usdg"));
  if (input === undefined) return tokenInfo(ctx, usdg);
  const text = input.trim();
  if (isNativeEth(text)) {
    if (paying) throw new ApiError("NATIVE_ETH_IN", "Native ETH cannot be paid in: use WETH");
    throw new ApiError("BAD_TOKEN", "The zap pays ERC-20 tokens: receive WETH, not native ETH", { token: text });
  }
  const weth = ctx.deployments.contracts.weth;
  const candidates: Address[] = [usdg, ...(weth ? [getAddress(weth)] : []), ...basketTokens];
  const infos = await Promise.all(candidates.map((a) => tokenInfo(ctx, a)));
  const found = isAddress(text, { strict: false })
    ? infos.find((t) => sameAddress(t.address, text))
    : infos.find((t) => t.symbol.toLowerCase() === text.toLowerCase());
  if (!found) {
    throw new ApiError("BAD_TOKEN", `${text} cannot ${paying ? "pay for" : "be received from"} this basket: use USDG, WETH or one of its tokens`, {
      token: text,
    });
  }
  return found;
}

const pausedAbi = parseAbi(["function paused() view returns (bool)"]);

/** 422 TOKEN_FROZEN when `holder` is frozen on `token`; 422 TOKEN_PAUSED when the token says it is paused. */
export async function checkTokenUsable(ctx: PrepareContext, token: BasketToken, holders: readonly Address[]): Promise<void> {
  // WETH9 has neither paused() nor frozen(): its reads would only revert, and a node that answers a
  // revert as -32603 (the devnet) makes viem retry each one (~100 ms per basket that holds WETH).
  const weth = ctx.deployments.contracts.weth;
  if (weth && sameAddress(token.address, weth)) return;
  const [paused, ...frozen] = await Promise.all([
    ctx.client.readContract({ address: token.address, abi: pausedAbi, functionName: "paused" }).catch(() => false),
    ...holders.map((h) => ctx.client.readContract({ address: token.address, abi: testTokenAbi, functionName: "frozen", args: [h] }).catch(() => false)),
  ]);
  if (paused) throw new ApiError("TOKEN_PAUSED", `${token.symbol} is paused`, { token: token.address });
  const at = frozen.findIndex(Boolean);
  if (at >= 0) throw new ApiError("TOKEN_FROZEN", `${token.symbol} is frozen for ${holders[at]}`, { token: token.address });
}
