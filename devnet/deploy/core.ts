// Core of the devnet: USDG, WETH, the listed and unlisted tokens with their USDG pools, the
// aggregator stand-in, the swap router and the market maker. Test wallets 0-9 get every token.
import { parseEther, type Address } from "viem";
import { marketRegistryAbi, poolAbi, testTokenAbi, weth9Abi } from "../../abis/index.js";
import { priceToX18, usdgToToken } from "../../domain/price.js";
import type { DeployedToken } from "../../adapters/chain/deployments.js";
import { accountAddress, multicall3Address } from "../chain.js";
import { devnetTokens } from "../tokens.js";
import type { DeployContext } from "./context.js";

export type CoreDeployment = {
  usdg: Address;
  weth: Address;
  markets: Address;
  aggregator: Address;
  swapRouter: Address;
  marketMaker: Address;
  /** USDG first, then every devnet token with its pool. */
  tokens: DeployedToken[];
};

const USDG = 10n ** 6n;
/** What each test wallet holds of every token, in USD. */
const WALLET_USD = 1_000_000n;
const MAKER_USD = 50_000_000n;

export async function deployCore(ctx: DeployContext): Promise<CoreDeployment> {
  const { admin } = ctx;
  const multicall = await ctx.deploy("Multicall3");
  if (multicall !== multicall3Address) throw new Error("Multicall3 must be the deployer's first contract");
  const usdg = await ctx.deploy("TestToken", ["USD Global", "USDG", 6, admin]);
  const weth = await ctx.deploy("WETH9");
  const markets = await ctx.deploy("MarketRegistry", [usdg, admin]);
  const aggregator = await ctx.deploy("DevAggregator", [markets]);
  const swapRouter = await ctx.deploy("SwapRouter", [aggregator, weth, admin]);
  // The keeper EOA owns the market maker; contracts give their keeper role to the market maker.
  const marketMaker = await ctx.deploy("MarketMaker", [ctx.keeper]);

  const tokens: DeployedToken[] = [{ symbol: "USDG", name: "USD Global", address: usdg, decimals: 6, category: "utility", pool: null }];
  const wallets = Array.from({ length: 10 }, (_, i) => accountAddress(i));
  const mintUsdg = async (to: Address, amount: bigint) => ctx.send(usdg, testTokenAbi, "mint", [to, amount]);

  for (const spec of devnetTokens) {
    const price = priceToX18(spec.startPrice);
    const units = (usd: bigint) => usdgToToken(usd * USDG, spec.decimals, price);
    const address = spec.symbol === "WETH" ? weth : await ctx.deploy("TestToken", [spec.name, spec.symbol, spec.decimals, admin]);
    const need = units(BigInt(spec.liquidityUsd)) + units(MAKER_USD) + units(WALLET_USD) * BigInt(wallets.length);
    if (address === weth) {
      await ctx.chain.testClient.setBalance({ address: admin, value: need * 2n + parseEther("1000000") });
      await ctx.chain.walletFor(10).writeContract({ address: weth, abi: weth9Abi, functionName: "deposit", value: need });
    } else {
      await ctx.send(address, testTokenAbi, "mint", [admin, need]);
    }
    await ctx.send(markets, marketRegistryAbi, "createPool", [address]);
    const pool = (await ctx.chain.publicClient.readContract({ address: markets, abi: marketRegistryAbi, functionName: "poolOf", args: [address] })) as Address;
    const liquidityUsdg = BigInt(spec.liquidityUsd) * USDG;
    await mintUsdg(admin, liquidityUsdg);
    await ctx.send(address, testTokenAbi, "approve", [pool, units(BigInt(spec.liquidityUsd))]);
    await ctx.send(usdg, testTokenAbi, "approve", [pool, liquidityUsdg]);
    await ctx.send(pool, poolAbi, "addLiquidity", [units(BigInt(spec.liquidityUsd)), liquidityUsdg]);
    await ctx.send(address, testTokenAbi, "transfer", [marketMaker, units(MAKER_USD)]);
    for (const w of wallets) await ctx.send(address, testTokenAbi, "transfer", [w, units(WALLET_USD)]);
    tokens.push({ symbol: spec.symbol, name: spec.name, address, decimals: spec.decimals, category: spec.category, pool });
  }
  await mintUsdg(marketMaker, MAKER_USD * USDG * 10n);
  for (const w of wallets) await mintUsdg(w, WALLET_USD * USDG);
  return { usdg, weth, markets, aggregator, swapRouter, marketMaker, tokens };
}
