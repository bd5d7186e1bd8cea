// Basket keeper: at most once per chain hour per live basket, the MarketMaker (which holds every token)
// makes one small swap in the pool, in the direction that brings the pool's prices back towards the
// market's (what arbitrage does on a real chain). The fee stays in the pool, so baskets earn it.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { basketMakerAbi, basketPoolAbi, basketRegistryAbi, devAggregatorAbi, marketRegistryAbi, testTokenAbi } from "../../abis/index.js";
import type { DeployContext } from "../deploy/context.js";

export type BasketKeeperInput = {
  basketRegistry: Address;
  baskets: { address: Address }[];
  /** The keeper contract that runs the calls; read from the registry's `keeper()` when omitted. */
  marketMaker?: Address;
  /** Seconds between two swaps in one basket (default one hour of chain time). */
  minIntervalSeconds?: number;
};

const lastSwap = new Map<Address, number>();
const decimalsCache = new Map<Address, number>();
const marketsCache = new Map<Address, Address>();

const ONE = 10n ** 18n;
/** Each swap sells 0.5%-2% of the pool's balance of the token it sells (volume for the fee history). */
const MIN_PART = 50n; // per 10_000
const MAX_PART = 200n;

export async function basketKeeperCalls(ctx: DeployContext, d: BasketKeeperInput): Promise<{ target: Address; data: Hex }[]> {
  const read = ctx.chain.publicClient;
  const marketMaker = d.marketMaker ?? (await read.readContract({ address: d.basketRegistry, abi: basketRegistryAbi, functionName: "keeper" }));
  const markets = await marketsOf(ctx, d.basketRegistry);
  const now = Number((await read.getBlock()).timestamp);
  const interval = d.minIntervalSeconds ?? 3600;

  const calls: { target: Address; data: Hex }[] = [];
  for (const { address: pool } of d.baskets) {
    const last = lastSwap.get(pool);
    if (last !== undefined && now - last < interval) continue;
    const [paused, supply] = await Promise.all([
      read.readContract({ address: pool, abi: basketPoolAbi, functionName: "paused" }),
      read.readContract({ address: pool, abi: basketPoolAbi, functionName: "totalSupply" }),
    ]);
    if (paused || supply === 0n) continue;
    const [tokens, weights, balances] = await Promise.all([
      read.readContract({ address: pool, abi: basketPoolAbi, functionName: "getTokens" }),
      read.readContract({ address: pool, abi: basketPoolAbi, functionName: "getNormalizedWeights" }),
      read.readContract({ address: pool, abi: basketPoolAbi, functionName: "getBalances" }),
    ]);
    // Value per unit of weight at market prices: equal for every token when the pool matches the market.
    const valuePerWeight = await Promise.all(
      tokens.map(async (token, i) => {
        const [price, decimals] = await Promise.all([
          read.readContract({ address: markets, abi: marketRegistryAbi, functionName: "priceX18", args: [token] }),
          decimalsOf(ctx, token),
        ]);
        return (balances[i]! * price * ONE) / 10n ** BigInt(decimals) / weights[i]!;
      }),
    );
    // Sell to the pool the token it holds least of (it pays the most for it), buy the one it holds most of.
    let i = 0;
    let o = 0;
    for (let k = 1; k < tokens.length; k++) {
      if (valuePerWeight[k]! < valuePerWeight[i]!) i = k;
      if (valuePerWeight[k]! > valuePerWeight[o]!) o = k;
    }
    if (i === o) o = (i + 1) % tokens.length;
    // Close about a quarter of the gap, within 0.5%-2% of the balance sold.
    const gapBps = valuePerWeight[i]! === 0n ? MAX_PART : ((valuePerWeight[o]! - valuePerWeight[i]!) * 10_000n) / valuePerWeight[i]! / 4n;
    const part = gapBps < MIN_PART ? MIN_PART : gapBps > MAX_PART ? MAX_PART : gapBps;
    const amountIn = (balances[i]! * part) / 10_000n;
    if (amountIn === 0n) continue;
    const [quote] = await read.readContract({ address: pool, abi: basketPoolAbi, functionName: "quoteSwap", args: [tokens[i]!, tokens[o]!, amountIn] });
    if (quote === 0n) continue;
    calls.push({ target: tokens[i]!, data: encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [pool, amountIn] }) });
    calls.push({
      target: pool,
      data: encodeFunctionData({ abi: basketPoolAbi, functionName: "swap", args: [tokens[i]!, tokens[o]!, amountIn, (quote * 99n) / 100n, marketMaker] }),
    });
    lastSwap.set(pool, now);
  }
  return calls;
}

/** The market registry behind the maker's aggregator (registry -> maker -> aggregator -> markets). */
async function marketsOf(ctx: DeployContext, registry: Address): Promise<Address> {
  const cached = marketsCache.get(registry);
  if (cached) return cached;
  const read = ctx.chain.publicClient;
  const maker = await read.readContract({ address: registry, abi: basketRegistryAbi, functionName: "basketMaker" });
  const aggregator = await read.readContract({ address: maker, abi: basketMakerAbi, functionName: "aggregator" });
  const markets = await read.readContract({ address: aggregator, abi: devAggregatorAbi, functionName: "markets" });
  marketsCache.set(registry, markets);
  return markets;
}

async function decimalsOf(ctx: DeployContext, token: Address): Promise<number> {
  let decimals = decimalsCache.get(token);
  if (decimals === undefined) {
    decimals = await ctx.chain.publicClient.readContract({ address: token, abi: testTokenAbi, functionName: "decimals" });
    decimalsCache.set(token, decimals);
  }
  return decimals;
}
