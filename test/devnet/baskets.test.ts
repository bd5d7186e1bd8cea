// Baskets on the devnet: buy and sell through the zap, make a basket, swap fees, and the refusals.
import { beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, custom, decodeEventLog, isAddressEqual, parseEventLogs, type Abi, type Address, type Hex, type PublicClient } from "viem";
import { basketMakerAbi, basketPoolAbi, basketRegistryAbi, basketZapAbi, marketMakerAbi, testTokenAbi } from "../../abis/index.js";
import { accountAddress, devnetChain } from "../../devnet/chain.js";
import {
  aggregatorQuote,
  basketParams,
  buildLegs,
  buildSellLegs,
  deployBaskets,
  proportionalExit,
  proportionalJoin,
  USER_BASKET_WALLET,
  type BasketDeployment,
  type BasketSpec,
} from "../../devnet/deploy/baskets.js";
import { basketKeeperCalls } from "../../devnet/keeper/baskets.js";
import { lessSlippage } from "../../domain/basket-pool.js";
import { bootCore, type CoreFixture } from "../helpers/devnet.js";

let fx: CoreFixture;
/** Reverts are final: no transport retries (they only add backoff delays). */
let noRetry: PublicClient;
let b: BasketDeployment;
const USDG = 10n ** 6n;
const ONE = 10n ** 18n;

const read = () => fx.chain.publicClient;
const token = (symbol: string) => fx.core.tokens.find((t) => t.symbol === symbol)!.address;
const basket = (symbol: string) => b.baskets.find((x) => x.symbol === symbol)!.address;
const quote = () => aggregatorQuote(read(), fx.core.aggregator);
const deadline = async (seconds = 600n) => (await read().getBlock()).timestamp + seconds;

async function send(wallet: number, address: Address, abi: Abi, functionName: string, args: readonly unknown[]) {
  return fx.ctx.send(address, abi, functionName, args, accountAddress(wallet));
}
async function logsOf(hash: Hex, abi: Abi) {
  const receipt = await read().getTransactionReceipt({ hash });
  return parseEventLogs({ abi, logs: receipt.logs });
}
const balanceOf = (tokenAddress: Address, owner: Address) =>
  read().readContract({ address: tokenAddress, abi: testTokenAbi, functionName: "balanceOf", args: [owner] });

async function poolState(pool: Address) {
  const [tokens, weights, balances, supply] = await Promise.all([
    read().readContract({ address: pool, abi: basketPoolAbi, functionName: "getTokens" }),
    read().readContract({ address: pool, abi: basketPoolAbi, functionName: "getNormalizedWeights" }),
    read().readContract({ address: pool, abi: basketPoolAbi, functionName: "getBalances" }),
    read().readContract({ address: pool, abi: basketPoolAbi, functionName: "totalSupply" }),
  ]);
  return { tokens, weights, balances, supply };
}

/** The args of a zap buy of `amount` USDG, as the service would prepare it. */
async function buyArgs(pool: Address, owner: Address, amount: bigint, slippageBps = 100) {
  const s = await poolState(pool);
  const { legs, quotes } = await buildLegs({
    quote: quote(),
    payToken: fx.core.usdg,
    amount,
    tokens: s.tokens,
    weights: s.weights,
    recipient: b.basketZap,
    slippageBps,
  });
  const expected = proportionalJoin(s.balances, s.supply, quotes).bptOut;
  return { legs, expected, args: [pool, fx.core.usdg, amount, legs, lessSlippage(expected, slippageBps), owner, await deadline()] as const };
}

/** Simulates a call from `wallet` and returns its revert message. */
async function revertOf(wallet: number, address: Address, abi: Abi, functionName: string, args: readonly unknown[]): Promise<string> {
  try {
    await noRetry.simulateContract({ address, abi, functionName, args: args as unknown[], account: accountAddress(wallet) });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${functionName} did not revert`);
}

beforeAll(async () => {
  fx = await bootCore(["baskets"]);
  b = await deployBaskets(fx.ctx, fx.core);
  noRetry = createPublicClient({ chain: devnetChain, transport: custom(fx.chain.provider, { retryCount: 0 }) });
}, 240_000);

describe("basket deployment", () => {
  it("registers the service's baskets and the user-made one", async () => {
    const registry = b.basketRegistry;
    const r = (fn: "isListed" | "isSellOnly" | "makerOf", pool: Address) =>
      read().readContract({ address: registry, abi: basketRegistryAbi, functionName: fn, args: [pool] });
    expect(await read().readContract({ address: registry, abi: basketRegistryAbi, functionName: "baskets" })).toEqual(b.baskets.map((x) => x.address));
    expect(b.baskets.filter((x) => x.listed).map((x) => x.symbol)).toEqual(["BLUE", "STOCKS", "MEMES", "UTIL"]);
    for (const x of b.baskets) {
      expect(await r("isListed", x.address)).toBe(x.listed);
      expect(await r("isSellOnly", x.address)).toBe(x.sellOnly);
    }
    expect(b.baskets.find((x) => x.sellOnly)?.symbol).toBe("OLDALT");
    expect(await read().readContract({ address: basket("UTIL"), abi: basketPoolAbi, functionName: "paused" })).toBe(true);
    expect(await r("makerOf", basket("ETHMIX"))).toBe(accountAddress(USER_BASKET_WALLET));
    expect(await r("makerOf", basket("BLUE"))).toBe(fx.ctx.admin);
    expect(await balanceOf(basket("ETHMIX"), accountAddress(USER_BASKET_WALLET))).toBe(100n * ONE);
    expect(await read().readContract({ address: registry, abi: basketRegistryAbi, functionName: "keeper" })).toBe(fx.core.marketMaker);
  });
});

describe("basket zap", () => {
  const wallet = 1;
  const owner = accountAddress(wallet);

  it("buys a basket with USDG, then sells part and all of it", async () => {
    const pool = basket("BLUE");
    const amount = 1_000n * USDG;
    const usdg0 = await balanceOf(fx.core.usdg, owner);
    const { expected, args } = await buyArgs(pool, owner, amount);
    await send(wallet, fx.core.usdg, testTokenAbi, "approve", [b.basketZap, amount]);
    const hash = await send(wallet, b.basketZap, basketZapAbi, "buy", args);

    const bpt = await balanceOf(pool, owner);
    expect(bpt).toBeGreaterThanOrEqual(lessSlippage(expected, 100));
    expect(bpt).toBeGreaterThan(0n);
    // Paid `amount`; what the proportional join did not take (a little USDG here) came back.
    const paid = usdg0 - (await balanceOf(fx.core.usdg, owner));
    expect(paid).toBeLessThanOrEqual(amount);
    expect(paid).toBeGreaterThan((amount * 99n) / 100n);
    expect(await read().readContract({ address: fx.core.usdg, abi: testTokenAbi, functionName: "allowance", args: [owner, b.basketZap] })).toBe(0n);
    const buyLogs = await logsOf(hash, [...basketZapAbi, ...basketPoolAbi] as Abi);
    const joined = buyLogs.find((l) => l.eventName === "Joined") as unknown as { args: { sender: Address; recipient: Address; bptOut: bigint } };
    expect(joined.args).toMatchObject({ sender: b.basketZap, recipient: owner, bptOut: bpt });
    const zapBuy = buyLogs.find((l) => l.eventName === "ZapBuy") as unknown as { args: Record<string, unknown> };
    expect(zapBuy.args).toMatchObject({ pool, sender: owner, recipient: owner, tokenIn: fx.core.usdg, amountIn: amount, bptOut: bpt });
    // The zap keeps nothing.
    for (const t of (await poolState(pool)).tokens) expect(await balanceOf(t, b.basketZap)).toBe(0n);

    // Sell half, then the rest.
    let received = 0n;
    for (const bptIn of [bpt / 2n, bpt - bpt / 2n]) {
      const s = await poolState(pool);
      const exits = proportionalExit(s.balances, s.supply, bptIn);
      const { legs, expectedOut } = await buildSellLegs({
        quote: quote(),
        receiveToken: fx.core.usdg,
        tokens: s.tokens,
        amounts: exits,
        recipient: b.basketZap,
        slippageBps: 100,
      });
      const before = await balanceOf(fx.core.usdg, owner);
      await send(wallet, pool, basketPoolAbi, "approve", [b.basketZap, bptIn]);
      const sellHash = await send(wallet, b.basketZap, basketZapAbi, "sell", [
        pool,
        bptIn,
        fx.core.usdg,
        legs,
        lessSlippage(expectedOut, 100),
        owner,
        await deadline(),
      ]);
      const got = (await balanceOf(fx.core.usdg, owner)) - before;
      expect(got).toBe(expectedOut);
      received += got;
      const logs = await logsOf(sellHash, [...basketZapAbi, ...basketPoolAbi] as Abi);
      const exited = logs.find((l) => l.eventName === "Exited") as unknown as { args: { bptIn: bigint; amountsOut: readonly bigint[] } };
      expect(exited.args.bptIn).toBe(bptIn);
      expect(exited.args.amountsOut).toEqual(exits);
      const zapSell = logs.find((l) => l.eventName === "ZapSell") as unknown as { args: Record<string, unknown> };
      expect(zapSell.args).toMatchObject({ pool, sender: owner, recipient: owner, tokenOut: fx.core.usdg, bptIn, amountOut: got });
    }
    expect(await balanceOf(pool, owner)).toBe(0n);
    // A round trip through two aggregator routes and a 20% USDG pass-through costs well under 2%.
    expect(received).toBeGreaterThan((amount * 98n) / 100n);
    expect(received).toBeLessThan(amount);
  });

  it("pays with and receives one of the basket's own tokens (a pass-through leg)", async () => {
    const pool = basket("BLUE");
    const weth = token("WETH");
    const amount = 10n ** 17n; // 0.1 WETH
    const s = await poolState(pool);
    const { legs, quotes } = await buildLegs({
      quote: quote(),
      payToken: weth,
      amount,
      tokens: s.tokens,
      weights: s.weights,
      recipient: b.basketZap,
      slippageBps: 100,
    });
    const passThrough = legs.find((l) => l.tokenOut === weth)!;
    expect(passThrough).toMatchObject({ tokenIn: weth, data: "0x" });
    const expected = proportionalJoin(s.balances, s.supply, quotes).bptOut;
    await send(wallet, weth, testTokenAbi, "approve", [b.basketZap, amount]);
    await send(wallet, b.basketZap, basketZapAbi, "buy", [pool, weth, amount, legs, lessSlippage(expected, 100), owner, await deadline()]);
    const bpt = await balanceOf(pool, owner);
    expect(bpt).toBeGreaterThanOrEqual(lessSlippage(expected, 100));

    const s2 = await poolState(pool);
    const sell = await buildSellLegs({
      quote: quote(),
      receiveToken: weth,
      tokens: s2.tokens,
      amounts: proportionalExit(s2.balances, s2.supply, bpt),
      recipient: b.basketZap,
      slippageBps: 100,
    });
    const before = await balanceOf(weth, owner);
    await send(wallet, pool, basketPoolAbi, "approve", [b.basketZap, bpt]);
    await send(wallet, b.basketZap, basketZapAbi, "sell", [pool, bpt, weth, sell.legs, lessSlippage(sell.expectedOut, 100), owner, await deadline()]);
    // Two legs end in the WETH market, so the second gets a little less than its separate quote.
    const got = (await balanceOf(weth, owner)) - before;
    expect(got).toBeLessThanOrEqual(sell.expectedOut);
    expect(got).toBeGreaterThanOrEqual(lessSlippage(sell.expectedOut, 100));
    expect(got).toBeGreaterThan((amount * 98n) / 100n);
  });

  it("refuses with EXPIRED, BASKET_SELL_ONLY, BASKET_PAUSED and MIN_OUT", async () => {
    const amount = 100n * USDG;
    await send(wallet, fx.core.usdg, testTokenAbi, "approve", [b.basketZap, amount * 10n]);
    const blue = await buyArgs(basket("BLUE"), owner, amount);
    const expired = [...blue.args.slice(0, 6), (await deadline(0n)) - 1n];
    expect(await revertOf(wallet, b.basketZap, basketZapAbi, "buy", expired)).toMatch(/EXPIRED/);
    const tooMuch = [...blue.args.slice(0, 4), blue.expected * 2n, ...blue.args.slice(5)];
    expect(await revertOf(wallet, b.basketZap, basketZapAbi, "buy", tooMuch)).toMatch(/MIN_OUT/);
    const hidden = await buyArgs(basket("OLDALT"), owner, amount);
    expect(await revertOf(wallet, b.basketZap, basketZapAbi, "buy", hidden.args)).toMatch(/BASKET_SELL_ONLY/);
    const util = basket("UTIL");
    const s = await poolState(util);
    const { legs } = await buildLegs({
      quote: quote(),
      payToken: fx.core.usdg,
      amount,
      tokens: s.tokens,
      weights: s.weights,
      recipient: b.basketZap,
      slippageBps: 100,
    });
    expect(await revertOf(wallet, b.basketZap, basketZapAbi, "buy", [util, fx.core.usdg, amount, legs, 0n, owner, await deadline()])).toMatch(/BASKET_PAUSED/);
    await send(wallet, fx.core.usdg, testTokenAbi, "approve", [b.basketZap, 0n]);
  });

  it("lets the early buyer sell the hidden (sell-only) basket", async () => {
    const pool = basket("OLDALT");
    const seller = 3;
    const bpt = await balanceOf(pool, accountAddress(seller));
    expect(bpt).toBeGreaterThan(0n);
    const s = await poolState(pool);
    const { legs, expectedOut } = await buildSellLegs({
      quote: quote(),
      receiveToken: fx.core.usdg,
      tokens: s.tokens,
      amounts: proportionalExit(s.balances, s.supply, bpt),
      recipient: b.basketZap,
      slippageBps: 100,
    });
    await send(seller, pool, basketPoolAbi, "approve", [b.basketZap, bpt]);
    await send(seller, b.basketZap, basketZapAbi, "sell", [
      pool,
      bpt,
      fx.core.usdg,
      legs,
      lessSlippage(expectedOut, 100),
      accountAddress(seller),
      await deadline(),
    ]);
    expect(await balanceOf(pool, accountAddress(seller))).toBe(0n);
  });
});

describe("basket maker", () => {
  const wallet = 2;
  const owner = accountAddress(wallet);
  const spec: BasketSpec = {
    name: "Two Coins",
    symbol: "TWO",
    swapFeePct: 1,
    tokens: [
      { symbol: "USDG", weightPct: 30 },
      { symbol: "LINK", weightPct: 70 },
    ],
  };

  async function makeArgs(s: BasketSpec, amount = 500n * USDG) {
    const params = basketParams(fx.core, s);
    const { legs } = await buildLegs({
      quote: quote(),
      payToken: fx.core.usdg,
      amount,
      tokens: params.tokens,
      weights: params.normalizedWeights,
      recipient: b.basketMaker,
      slippageBps: 100,
    });
    return { params, args: [params, fx.core.usdg, amount, legs, 100n * ONE, owner, await deadline()] as const };
  }

  it("makes a basket at its predicted address, registered unlisted", async () => {
    const amount = 500n * USDG;
    const { params, args } = await makeArgs(spec, amount);
    const predicted = await read().readContract({ address: b.basketMaker, abi: basketMakerAbi, functionName: "predictAddress", args: [params, owner] });
    await send(wallet, fx.core.usdg, testTokenAbi, "approve", [b.basketMaker, amount]);
    const hash = await send(wallet, b.basketMaker, basketMakerAbi, "make", args);

    expect(await read().getCode({ address: predicted })).toBeTruthy();
    const reg = (fn: "isRegistered" | "isListed" | "makerOf") =>
      read().readContract({ address: b.basketRegistry, abi: basketRegistryAbi, functionName: fn, args: [predicted] });
    expect(await reg("isRegistered")).toBe(true);
    expect(await reg("isListed")).toBe(false);
    expect(await reg("makerOf")).toBe(owner);
    expect(await balanceOf(predicted, owner)).toBe(100n * ONE);
    expect(await read().readContract({ address: predicted, abi: basketPoolAbi, functionName: "owner" })).toBe(fx.ctx.admin);
    expect(await read().readContract({ address: predicted, abi: basketPoolAbi, functionName: "getNormalizedWeights" })).toEqual(params.normalizedWeights);
    const made = (await logsOf(hash, basketMakerAbi as Abi)).find((l) => l.eventName === "BasketMade") as unknown as { args: Record<string, unknown> };
    expect(made.args).toMatchObject({
      pool: predicted,
      creator: owner,
      name: "Two Coins",
      symbol: "TWO",
      tokens: params.tokens,
      swapFeePercentage: params.swapFeePercentage,
    });
    // The first deposit matches the weights in value: USDG is 30% of it.
    const [usdgIndex] = [params.tokens.indexOf(fx.core.usdg)];
    const balances = await read().readContract({ address: predicted, abi: basketPoolAbi, functionName: "getBalances" });
    expect(balances[usdgIndex!]).toBe(150n * USDG);
  });

  it("refuses SYMBOL_TAKEN, RESERVED_SYMBOL, WEIGHTS_SUM and NO_ANCHOR", async () => {
    const refuse = async (s: BasketSpec) => {
      const { args } = await makeArgs(s);
      return revertOf(wallet, b.basketMaker, basketMakerAbi, "make", args);
    };
    await send(wallet, fx.core.usdg, testTokenAbi, "approve", [b.basketMaker, 500n * USDG]);
    expect(await refuse({ ...spec, symbol: "blue" })).toMatch(/SYMBOL_TAKEN/);
    expect(await refuse({ ...spec, symbol: "tsMIX" })).toMatch(/RESERVED_SYMBOL/);
    expect(
      await refuse({
        ...spec,
        symbol: "SUM",
        tokens: [
          { symbol: "USDG", weightPct: 30 },
          { symbol: "LINK", weightPct: 60 },
        ],
      }),
    ).toMatch(/WEIGHTS_SUM/);
    expect(
      await refuse({
        ...spec,
        symbol: "NOANC",
        tokens: [
          { symbol: "LINK", weightPct: 50 },
          { symbol: "SOLX", weightPct: 50 },
        ],
      }),
    ).toMatch(/NO_ANCHOR/);
    await send(wallet, fx.core.usdg, testTokenAbi, "approve", [b.basketMaker, 0n]);
  });
});

describe("basket swaps and keeper", () => {
  it("keeps the swap fee in the pool, and a round trip cannot drain it", async () => {
    const pool = basket("MEMES");
    const wallet = 4;
    const owner = accountAddress(wallet);
    const s0 = await poolState(pool);
    // From the lightest to the heaviest token (where a linearised weighted formula would overpay),
    // a trade as large as the pool's balance.
    const i = s0.weights.indexOf(s0.weights.reduce((m, w) => (w < m ? w : m)));
    const o = s0.weights.indexOf(s0.weights.reduce((m, w) => (w > m ? w : m)));
    const [a, c] = [s0.tokens[i]!, s0.tokens[o]!];
    const amountIn = s0.balances[i]!;
    await send(wallet, a, testTokenAbi, "approve", [pool, amountIn]);
    const hash = await send(wallet, pool, basketPoolAbi, "swap", [a, c, amountIn, 0n, owner]);
    const swap = (await logsOf(hash, basketPoolAbi as Abi)).find((l) => l.eventName === "BasketSwap") as unknown as {
      args: { amountOut: bigint; fee: bigint };
    };
    expect(swap.args.fee).toBe((amountIn * 10n ** 16n + ONE - 1n) / ONE);
    const s1 = await poolState(pool);
    expect(s1.balances[i]).toBe(s0.balances[i]! + amountIn);
    expect(s1.balances[o]).toBe(s0.balances[o]! - swap.args.amountOut);
    // Sell it all back in ten pieces: the pool ends with the same `c` and more `a` than it started with.
    const back = swap.args.amountOut;
    await send(wallet, c, testTokenAbi, "approve", [pool, back]);
    for (let k = 0n; k < 10n; k++) {
      const piece = k < 9n ? back / 10n : back - (back / 10n) * 9n;
      await send(wallet, pool, basketPoolAbi, "swap", [c, a, piece, 0n, owner]);
    }
    const s2 = await poolState(pool);
    expect(s2.balances[o]).toBe(s0.balances[o]);
    expect(s2.balances[i]).toBeGreaterThan(s0.balances[i]!);
  });

  it("refuses a swap on a paused basket", async () => {
    const pool = basket("UTIL");
    const s = await poolState(pool);
    expect(await revertOf(5, pool, basketPoolAbi, "swap", [s.tokens[0]!, s.tokens[1]!, 1000n, 0n, accountAddress(5)])).toMatch(/BASKET_PAUSED/);
  });

  it("keeper swaps on every live basket from the MarketMaker, and the baskets earn fees", async () => {
    const calls = await basketKeeperCalls(fx.ctx, { basketRegistry: b.basketRegistry, baskets: b.baskets });
    const live = b.baskets.filter((x) => x.symbol !== "UTIL");
    const isLive = (a: Address) => live.some((x) => isAddressEqual(x.address, a));
    expect(calls.filter((c) => isLive(c.target))).toHaveLength(live.length);
    const before = await Promise.all(live.map((x) => poolState(x.address)));
    const hash = await fx.ctx.send(fx.core.marketMaker, marketMakerAbi, "executeBatch", [calls.map((c) => c.target), calls.map((c) => c.data)], fx.ctx.keeper);
    const receipt = await read().getTransactionReceipt({ hash });
    const swaps = receipt.logs
      .filter((l) => isLive(l.address))
      .map((l) => decodeEventLog({ abi: basketPoolAbi, data: l.data, topics: l.topics }))
      .filter((e) => e.eventName === "BasketSwap");
    expect(swaps).toHaveLength(live.length);
    for (const e of swaps) {
      const args = e.args as { sender: Address; fee: bigint };
      expect(args.sender).toBe(fx.core.marketMaker);
      expect(args.fee).toBeGreaterThan(0n);
    }
    // Each pool holds more of what it was sold, and its invariant did not fall (checked in floating point).
    for (const [i, x] of live.entries()) {
      const after = await poolState(x.address);
      const inv = (bal: readonly bigint[]) => bal.reduce((acc, v, k) => acc + (Number(after.weights[k]!) / 1e18) * Math.log(Number(v)), 0);
      expect(inv(after.balances)).toBeGreaterThan(inv(before[i]!.balances));
    }
    // Within the same hour the keeper has nothing more to do.
    expect(await basketKeeperCalls(fx.ctx, { basketRegistry: b.basketRegistry, baskets: b.baskets })).toEqual([]);
  });
});
