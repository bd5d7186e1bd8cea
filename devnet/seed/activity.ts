// Scripted user activity over the seeded history, spread over test wallets 5-9 (0-4 stay clean for
// people and tests): vault deposits, cancels, queued and direct withdrawals, swaps, limit orders,
// grids, ladder strategies and basket trades. Deterministic: a rotation keyed by the step index.
import { encodeFunctionData, parseUnits, type Address } from "viem";
import {
  basketPoolAbi,
  basketZapAbi,
  devAggregatorAbi,
  gridStrategyAbi,
  ladderStrategyAbi,
  limitOrderHookAbi,
  mergedVaultAbi,
  redeemQueueAbi,
  stockVaultRouterAbi,
  swapRouterAbi,
  testTokenAbi,
  upDepositQueueAbi,
  upWithdrawalQueueAbi,
} from "../../abis/index.js";
import { buildSellLegs, aggregatorQuote } from "../../adapters/chain/basket-legs.js";
import { lessSlippage, proportionalExit } from "../../domain/basket-pool.js";
import type { DeployedVault, Deployments } from "../../adapters/chain/deployments.js";
import { priceToX18 } from "../../domain/price.js";
import { accountAddress } from "../chain.js";
import type { DeployContext } from "../deploy/context.js";
import type { CoreDeployment } from "../deploy/core.js";
import { buyBasket } from "../deploy/baskets.js";
import type { MarketSimulator } from "../market.js";

/** One user action every this many seeded steps (about 120 over the history). */
const EVERY = 25;
const WALLETS = [5, 6, 7, 8, 9];
const usdg = (n: string) => parseUnits(n, 6);

type Env = { ctx: DeployContext; d: Deployments; market: MarketSimulator; from: Address; timestamp: number };

export function seedActivity(ctx: DeployContext, d: Deployments, market: MarketSimulator) {
  const actions = userActions(d);
  const core = coreOf(d);
  let n = 0;
  return async (step: number, timestamp: number, tick: () => Promise<void>) => {
    if (step % EVERY !== EVERY - 1) return;
    const action = actions[n % actions.length]!;
    const from = accountAddress(WALLETS[n % WALLETS.length]!);
    n++;
    const env = { ctx: { ...ctx, send: sendAfter(ctx, tick) }, d, market, from, timestamp };
    try {
      await action.run(env, core);
    } catch (err) {
      // A scripted action may meet a state it did not expect (a full vault, nothing to sell): skip it.
      console.log(`[devnet] seeded action ${action.name} skipped: ${(err as Error).message.split("\n")[0]}`);
    }
  };
}

/** Every transaction of an action gets the next timestamp of the step. */
function sendAfter(ctx: DeployContext, tick: () => Promise<void>): DeployContext["send"] {
  return async (...args) => {
    await tick();
    return ctx.send(...args);
  };
}

function coreOf(d: Deployments): CoreDeployment {
  const c = d.contracts;
  return {
    usdg: c.usdg!,
    weth: c.weth!,
    markets: c.markets!,
    aggregator: c.aggregator!,
    swapRouter: c.swapRouter!,
    marketMaker: c.marketMaker!,
    tokens: d.tokens,
  };
}

type Named = { name: string; run: (env: Env, core: CoreDeployment) => Promise<void> };

function userActions(d: Deployments): Named[] {
  const vault = (family: string, i: number) => d.vaults.filter((v) => v.family === family && v.agent)[i]!;
  const token = (symbol: string) => d.tokens.find((t) => t.symbol === symbol)!;
  return [
    { name: "merged deposit", run: (e) => mergedDeposit(e, vault("merged", 0), usdg("5000")) },
    { name: "swap USDG to LINK", run: (e, core) => swap(e, core, core.usdg, token("LINK").address, usdg("750")) },
    { name: "limit sell", run: (e) => limitOrder(e, "SOLX", true, 1.02) },
    { name: "grid", run: (e) => openGrid(e, "WETH", 0.99, 1.02) },
    { name: "basket buy", run: (e, core) => buyBasketAction(e, core, 0, usdg("800")) },
    { name: "up deposit", run: (e) => upDeposit(e, vault("up", 0), usdg("2500")) },
    { name: "limit buy", run: (e) => limitOrder(e, "LINK", false, 0.985) },
    { name: "ladder strategy", run: (e) => openLadder(e, "tsTSLA") },
    { name: "stock deposit", run: (e, core) => stockDeposit(e, core, vault("stock-token", 0), usdg("3000")) },
    { name: "merged withdraw through the queue", run: (e) => mergedQueueWithdraw(e, vault("merged", 0)) },
    { name: "swap WETH to USDG", run: (e, core) => swap(e, core, core.weth, core.usdg, parseUnits("0.2", 18)) },
    { name: "basket sell", run: (e, core) => sellBasketAction(e, core, 0) },
    { name: "merged deposit then cancel", run: (e) => mergedDepositCancel(e, vault("merged", 1), usdg("1200")) },
    { name: "merged in-kind withdraw", run: (e) => mergedInKind(e, vault("merged", 0)) },
    { name: "up withdraw through the queue", run: (e) => upQueueWithdraw(e, vault("up", 0)) },
  ];
}

const send = (e: Env, to: Address, abi: Parameters<DeployContext["send"]>[1], fn: string, args: readonly unknown[]) => e.ctx.send(to, abi, fn, args, e.from);
const read = <T>(e: Env, address: Address, abi: any, functionName: string, args: readonly unknown[] = []) =>
  e.ctx.chain.publicClient.readContract({ address, abi, functionName, args }) as Promise<T>;

async function mergedDeposit(e: Env, v: DeployedVault, amount: bigint) {
  await send(e, e.d.contracts.usdg!, testTokenAbi, "approve", [v.address, amount]);
  await send(e, v.address, mergedVaultAbi, "requestDeposit", [amount, e.from, 0n]);
}

async function mergedDepositCancel(e: Env, v: DeployedVault, amount: bigint) {
  await mergedDeposit(e, v, amount);
  const id = await read<bigint>(e, v.address, mergedVaultAbi, "lastDepositId");
  await send(e, v.address, mergedVaultAbi, "cancelDeposit", [id]);
}

async function upDeposit(e: Env, v: DeployedVault, amount: bigint) {
  await send(e, e.d.contracts.usdg!, testTokenAbi, "approve", [v.depositQueue!, amount]);
  await send(e, v.depositQueue!, upDepositQueueAbi, "requestDeposit", [amount, e.from, 0n]);
}

async function shareBalance(e: Env, v: DeployedVault) {
  return read<bigint>(e, v.address, testTokenAbi, "balanceOf", [e.from]);
}

async function mergedQueueWithdraw(e: Env, v: DeployedVault) {
  const shares = (await shareBalance(e, v)) / 3n;
  if (shares === 0n || !v.redeemQueue) return;
  await send(e, v.address, testTokenAbi, "approve", [v.redeemQueue, shares]);
  await send(e, v.redeemQueue, redeemQueueAbi, "request", [shares, e.from, 0n]);
}

async function mergedInKind(e: Env, v: DeployedVault) {
  const shares = (await shareBalance(e, v)) / 4n;
  if (shares === 0n) return;
  await send(e, v.address, mergedVaultAbi, "redeemInKind", [shares, e.from, 0n, 0n]);
}

async function upQueueWithdraw(e: Env, v: DeployedVault) {
  const shares = (await shareBalance(e, v)) / 2n;
  const minimum = await read<bigint>(e, v.withdrawalQueue!, upWithdrawalQueueAbi, "minimumShares");
  if (shares < minimum) return;
  await send(e, v.address, testTokenAbi, "approve", [v.withdrawalQueue!, shares]);
  await send(e, v.withdrawalQueue!, upWithdrawalQueueAbi, "requestRedeem", [shares, e.from, 0n]);
}

async function stockDeposit(e: Env, core: CoreDeployment, v: DeployedVault, amount: bigint) {
  const router = e.d.contracts.stockVaultRouter!;
  const out = await read<bigint>(e, core.aggregator, devAggregatorAbi, "quote", [core.usdg, v.token, amount]);
  const swapData = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [core.usdg, v.token, amount, lessSlippage(out, 100), router] });
  await send(e, core.usdg, testTokenAbi, "approve", [router, amount]);
  await send(e, router, stockVaultRouterAbi, "deposit", [
    { vault: v.address, usdgIn: amount, minShares: 0n, receiver: e.from, aggregator: core.aggregator, swapData },
  ]);
}

async function swap(e: Env, core: CoreDeployment, tokenIn: Address, tokenOut: Address, amountIn: bigint) {
  const router = core.swapRouter;
  const out = await read<bigint>(e, core.aggregator, devAggregatorAbi, "quote", [tokenIn, tokenOut, amountIn]);
  const route = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [tokenIn, tokenOut, amountIn, lessSlippage(out, 100), router] });
  await send(e, tokenIn, testTokenAbi, "approve", [router, amountIn]);
  const minAmountOut = lessSlippage((out * 999n) / 1000n, 100);
  await send(e, router, swapRouterAbi, "swap", [{ tokenIn, tokenOut, amountIn, minAmountOut, recipient: e.from, aggregator: core.aggregator, route }]);
}

/** A limit order `factor` away from the price now (sell above, buy below), so some fill later. */
async function limitOrder(e: Env, symbol: string, sellToken: boolean, factor: number) {
  const t = e.d.tokens.find((x) => x.symbol === symbol)!;
  const hook = e.d.contracts.limitOrderHook!;
  const price = e.market.price(symbol) * factor;
  const amountIn = sellToken ? parseUnits((600 / e.market.price(symbol)).toFixed(6), t.decimals) : usdg("600");
  await send(e, sellToken ? t.address : e.d.contracts.usdg!, testTokenAbi, "approve", [hook, amountIn]);
  await send(e, hook, limitOrderHookAbi, "create", [t.address, sellToken, amountIn, priceToX18(price)]);
}

async function openGrid(e: Env, symbol: string, buy: number, sell: number) {
  const t = e.d.tokens.find((x) => x.symbol === symbol)!;
  const grid = e.d.contracts.gridStrategy!;
  const p = e.market.price(symbol);
  const amountUsdg = usdg("1000");
  await send(e, e.d.contracts.usdg!, testTokenAbi, "approve", [grid, amountUsdg]);
  await send(e, grid, gridStrategyAbi, "open", [
    { token: t.address, buyPriceX18: priceToX18(p * buy), sellPriceX18: priceToX18(p * sell), amountUsdg, repeat: true },
  ]);
}

async function openLadder(e: Env, symbol: string) {
  const t = e.d.tokens.find((x) => x.symbol === symbol)!;
  const ladder = e.d.contracts.ladderStrategy!;
  const p = e.market.price(symbol);
  const legs = [0.98, 0.96, 0.94].map((f, i) => ({
    buyPriceX18: priceToX18(p * f),
    sellPriceX18: priceToX18(p * f * 1.04),
    amount: usdg(i === 0 ? "400" : "200"),
  }));
  const total = legs.reduce((s, l) => s + l.amount, 0n);
  await send(e, e.d.contracts.usdg!, testTokenAbi, "approve", [ladder, total]);
  await send(e, ladder, ladderStrategyAbi, "open", [t.address, legs, false, true, false]);
}

async function buyBasketAction(e: Env, core: CoreDeployment, index: number, amount: bigint) {
  const b = e.d.baskets.filter((x) => x.listed && !x.sellOnly)[index]!;
  await buyBasket(
    { ...e.ctx, send: (to, abi, fn, args) => e.ctx.send(to, abi, fn, args, e.from) },
    core,
    { basketZap: e.d.contracts.basketZap! },
    {
      pool: b.address,
      from: e.from,
      payToken: core.usdg,
      amount,
    },
  );
}

async function sellBasketAction(e: Env, core: CoreDeployment, index: number) {
  const b = e.d.baskets.filter((x) => x.listed && !x.sellOnly)[index]!;
  const zap = e.d.contracts.basketZap!;
  const bptIn = (await read<bigint>(e, b.address, basketPoolAbi, "balanceOf", [e.from])) / 2n;
  if (bptIn === 0n) return;
  const [tokens, balances, supply] = await Promise.all([
    read<readonly Address[]>(e, b.address, basketPoolAbi, "getTokens"),
    read<readonly bigint[]>(e, b.address, basketPoolAbi, "getBalances"),
    read<bigint>(e, b.address, basketPoolAbi, "totalSupply"),
  ]);
  const exits = proportionalExit(balances, supply, bptIn).map((x) => (x * 9990n) / 10000n);
  const { legs, quotes } = await buildSellLegs({
    quote: aggregatorQuote(e.ctx.chain.publicClient, core.aggregator),
    tokens,
    amounts: exits,
    receiveToken: core.usdg,
    recipient: zap,
    slippageBps: 100,
  });
  const minOut = lessSlippage(
    quotes.reduce((s, q) => s + q, 0n),
    100,
  );
  const deadline = BigInt(e.timestamp + 600);
  await send(e, b.address, basketPoolAbi, "approve", [zap, bptIn]);
  await send(e, zap, basketZapAbi, "sell", [b.address, bptIn, core.usdg, legs, minOut, e.from, deadline]);
}
