// Baskets: the registry, the zap and the maker, the service's own baskets (listed, one hidden and
// sell-only, one paused) and one basket a test wallet made itself. Deterministic: fixed order, fixed salts.
import { keccak256, toHex, type Address, type Hex } from "viem";
import { basketMakerAbi, basketPoolAbi, basketRegistryAbi, basketZapAbi, testTokenAbi } from "../../abis/index.js";
import type { DeployedBasket } from "../../adapters/chain/deployments.js";
import { aggregatorQuote, buildLegs } from "../../adapters/chain/basket-legs.js";
import { lessSlippage, proportionalJoin } from "../../domain/basket-pool.js";
import { accountAddress } from "../chain.js";
import type { CoreDeployment } from "./core.js";
import type { DeployContext } from "./context.js";

export { buildLegs, buildSellLegs, aggregatorQuote } from "../../adapters/chain/basket-legs.js";
export { proportionalJoin, proportionalExit } from "../../domain/basket-pool.js";

export type BasketDeployment = {
  basketRegistry: Address;
  basketZap: Address;
  basketMaker: Address;
  baskets: DeployedBasket[];
};

/** BasketMaker.BasketParams. */
export type BasketParams = {
  name: string;
  symbol: string;
  tokens: Address[];
  normalizedWeights: bigint[];
  swapFeePercentage: bigint;
  salt: Hex;
};

export type BasketSpec = {
  name: string;
  symbol: string;
  /** Token symbols of the core deployment with their weight in percent (sum 100). */
  tokens: { symbol: string; weightPct: number }[];
  /** 0.3 or 1 (percent). */
  swapFeePct: 0.3 | 1;
};

const USDG = 10n ** 6n;
export const ZAP_DEADLINE_SECONDS = 600n;
export const FEE_LOW = 3n * 10n ** 15n;
export const FEE_HIGH = 10n ** 16n;

/** The service's baskets, made in this order. */
const serviceBaskets: (BasketSpec & { depositUsd: bigint; listed: boolean; sellOnly?: boolean; paused?: boolean })[] = [
  {
    name: "Blue Chips",
    symbol: "BLUE",
    swapFeePct: 0.3,
    depositUsd: 200_000n,
    listed: true,
    tokens: [
      { symbol: "USDG", weightPct: 20 },
      { symbol: "WETH", weightPct: 40 },
      { symbol: "WBTC", weightPct: 40 },
    ],
  },
  {
    name: "Stocks",
    symbol: "STOCKS",
    swapFeePct: 0.3,
    depositUsd: 200_000n,
    listed: true,
    tokens: [
      { symbol: "USDG", weightPct: 10 },
      { symbol: "tsAAPL", weightPct: 30 },
      { symbol: "tsNVDA", weightPct: 30 },
      { symbol: "tsSPY", weightPct: 30 },
    ],
  },
  {
    name: "Memes",
    symbol: "MEMES",
    swapFeePct: 1,
    depositUsd: 20_000n,
    listed: true,
    tokens: [
      { symbol: "USDG", weightPct: 20 },
      { symbol: "DOGE2", weightPct: 40 },
      { symbol: "WIF2", weightPct: 40 },
    ],
  },
  // Hidden: taken off the site; holders may still sell.
  {
    name: "Old Alts",
    symbol: "OLDALT",
    swapFeePct: 1,
    depositUsd: 20_000n,
    listed: false,
    sellOnly: true,
    tokens: [
      { symbol: "USDG", weightPct: 50 },
      { symbol: "LINK", weightPct: 25 },
      { symbol: "SOLX", weightPct: 25 },
    ],
  },
  {
    name: "Utility Tokens",
    symbol: "UTIL",
    swapFeePct: 1,
    depositUsd: 20_000n,
    listed: true,
    paused: true,
    tokens: [
      { symbol: "USDG", weightPct: 30 },
      { symbol: "GAS", weightPct: 35 },
      { symbol: "ORCL", weightPct: 35 },
    ],
  },
];

/** Test wallet 7's own basket, made through the maker and unlisted. */
export const USER_BASKET_WALLET = 7;
const userBasket: BasketSpec & { depositUsd: bigint } = {
  name: "My ETH Mix",
  symbol: "ETHMIX",
  swapFeePct: 1,
  depositUsd: 1_000n,
  tokens: [
    { symbol: "WETH", weightPct: 50 },
    { symbol: "LINK", weightPct: 25 },
    { symbol: "SOLX", weightPct: 25 },
  ],
};
/** A test wallet that bought the hidden basket before it was taken off the site. */
const EARLY_BUYER_WALLET = 3;

export async function deployBaskets(ctx: DeployContext, core: CoreDeployment): Promise<BasketDeployment> {
  const { admin } = ctx;
  const basketRegistry = await ctx.deploy("BasketRegistry", [admin]);
  const basketZap = await ctx.deploy("BasketZap", [basketRegistry, core.aggregator, admin]);
  const basketMaker = await ctx.deploy("BasketMaker", [basketRegistry, core.usdg, core.weth, core.aggregator, admin]);
  await ctx.send(basketRegistry, basketRegistryAbi, "setBasketMaker", [basketMaker]);
  await ctx.send(basketRegistry, basketRegistryAbi, "setKeeper", [core.marketMaker]);
  const d = { basketRegistry, basketZap, basketMaker };

  const baskets: DeployedBasket[] = [];
  for (const spec of serviceBaskets) {
    const amount = spec.depositUsd * USDG;
    await ctx.send(core.usdg, testTokenAbi, "mint", [admin, amount]);
    const pool = await makeBasket(ctx, core, d, spec, admin, amount);
    if (spec.listed) await ctx.send(basketRegistry, basketRegistryAbi, "setListed", [pool, true]);
    if (spec.sellOnly) {
      await buyBasket(ctx, core, d, { pool, from: accountAddress(EARLY_BUYER_WALLET), payToken: core.usdg, amount: 2_000n * USDG });
      await ctx.send(basketRegistry, basketRegistryAbi, "setSellOnly", [pool, true]);
    }
    if (spec.paused) await ctx.send(pool, basketPoolAbi, "setPaused", [true]);
    baskets.push({ address: pool, name: spec.name, symbol: spec.symbol, listed: spec.listed, sellOnly: !!spec.sellOnly });
  }
  const user = accountAddress(USER_BASKET_WALLET);
  const pool = await makeBasket(ctx, core, d, userBasket, user, userBasket.depositUsd * USDG);
  baskets.push({ address: pool, name: userBasket.name, symbol: userBasket.symbol, listed: false, sellOnly: false });
  return { ...d, baskets };
}

/** The maker's params for a spec: tokens sorted by address, weights in 1e18, salt from the symbol. */
export function basketParams(core: CoreDeployment, spec: BasketSpec): BasketParams {
  const entries = spec.tokens.map(({ symbol, weightPct }) => {
    const token = core.tokens.find((t) => t.symbol === symbol);
    if (!token) throw new Error(`no devnet token ${symbol}`);
    return { address: token.address, weight: BigInt(Math.round(weightPct * 100)) * 10n ** 14n };
  });
  entries.sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  return {
    name: spec.name,
    symbol: spec.symbol,
    tokens: entries.map((e) => e.address),
    normalizedWeights: entries.map((e) => e.weight),
    swapFeePercentage: spec.swapFeePct === 0.3 ? FEE_LOW : FEE_HIGH,
    salt: keccak256(toHex(spec.symbol)),
  };
}

async function deadline(ctx: DeployContext): Promise<bigint> {
  const block = await ctx.chain.publicClient.getBlock();
  return block.timestamp + ZAP_DEADLINE_SECONDS;
}

/** `from` makes a basket through the maker, paying `amount` USDG (approved exactly); returns the pool. */
export async function makeBasket(
  ctx: DeployContext,
  core: CoreDeployment,
  d: { basketMaker: Address },
  spec: BasketSpec,
  from: Address,
  amount: bigint,
  slippageBps = 100,
): Promise<Address> {
  const read = ctx.chain.publicClient;
  const params = basketParams(core, spec);
  const { legs } = await buildLegs({
    quote: aggregatorQuote(read, core.aggregator),
    payToken: core.usdg,
    amount,
    tokens: params.tokens,
    weights: params.normalizedWeights,
    recipient: d.basketMaker,
    slippageBps,
  });
  const pool = await read.readContract({ address: d.basketMaker, abi: basketMakerAbi, functionName: "predictAddress", args: [params, from] });
  await ctx.send(core.usdg, testTokenAbi, "approve", [d.basketMaker, amount], from);
  await ctx.send(d.basketMaker, basketMakerAbi, "make", [params, core.usdg, amount, legs, 100n * 10n ** 18n, from, await deadline(ctx)], from);
  return pool;
}

/** `from` buys basket tokens through the zap with `amount` of `payToken` (approved exactly); returns the expected basket tokens. */
export async function buyBasket(
  ctx: DeployContext,
  core: CoreDeployment,
  d: { basketZap: Address },
  opts: { pool: Address; from: Address; payToken: Address; amount: bigint; slippageBps?: number },
): Promise<bigint> {
  const read = ctx.chain.publicClient;
  const slippageBps = opts.slippageBps ?? 100;
  const [tokens, weights, balances, supply] = await Promise.all([
    read.readContract({ address: opts.pool, abi: basketPoolAbi, functionName: "getTokens" }),
    read.readContract({ address: opts.pool, abi: basketPoolAbi, functionName: "getNormalizedWeights" }),
    read.readContract({ address: opts.pool, abi: basketPoolAbi, functionName: "getBalances" }),
    read.readContract({ address: opts.pool, abi: basketPoolAbi, functionName: "totalSupply" }),
  ]);
  const { legs, quotes } = await buildLegs({
    quote: aggregatorQuote(read, core.aggregator),
    payToken: opts.payToken,
    amount: opts.amount,
    tokens,
    weights,
    recipient: d.basketZap,
    slippageBps,
  });
  const expected = proportionalJoin(balances, supply, quotes).bptOut;
  await ctx.send(opts.payToken, testTokenAbi, "approve", [d.basketZap, opts.amount], opts.from);
  const args = [opts.pool, opts.payToken, opts.amount, legs, lessSlippage(expected, slippageBps), opts.from, await deadline(ctx)] as const;
  await ctx.send(d.basketZap, basketZapAbi, "buy", args, opts.from);
  return expected;
}
