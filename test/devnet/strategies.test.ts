// Strategies on the devnet: limit orders (fills, commission, claims, cancel, realize, market orders),
// grids (round trips, fees, collect, repeat, close), ladder strategies (legs, masks, every refusal) and
// agent accounts (limits), with the keeper's fill/poke batches.
import {
  type BaseError,
  createPublicClient,
  custom,
  decodeErrorResult,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  parseAbi,
  parseEventLogs,
  type Abi,
  type Address,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import {
  agentAccountAbi,
  agentAccountFactoryAbi,
  gridStrategyAbi,
  ladderStrategyAbi,
  limitOrderHookAbi,
  marketMakerAbi,
  marketRegistryAbi,
  poolAbi,
  testTokenAbi,
} from "../../abis/index.js";
import { accountAddress, devnetChain } from "../../devnet/chain.js";
import { deployStrategies, strategyParams, type StrategyDeployment } from "../../devnet/deploy/strategies.js";
import { strategyKeeperCalls } from "../../devnet/keeper/strategies.js";
import { priceToX18, tokenToUsdg } from "../../domain/price.js";
import { bootCore, type CoreFixture } from "../helpers/devnet.js";

let f: CoreFixture;
let s: StrategyDeployment;
let noRetry: ReturnType<typeof createPublicClient>;

const USDG = 10n ** 6n;
const ONE = 10n ** 18n;
const STRANGER = 9;

const read = () => f.chain.publicClient;
const tok = (symbol: string) => f.core.tokens.find((t) => t.symbol === symbol)!;
const usdg = () => f.core.usdg;
const balanceOf = (token: Address, who: Address) => read().readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [who] });

async function send(wallet: number, address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []) {
  const hash = await f.ctx.send(address, abi, functionName, args, accountAddress(wallet));
  return read().getTransactionReceipt({ hash });
}
const sendAdmin = async (address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []) =>
  read().getTransactionReceipt({ hash: await f.ctx.send(address, abi, functionName, args) });

/** Decoded events of `name` emitted by `address` in a receipt. */
function events<const A extends Abi>(receipt: TransactionReceipt, abi: A, name: string, address?: Address) {
  return parseEventLogs({ abi, logs: receipt.logs })
    .filter((l) => (l as { eventName: string }).eventName === name)
    .filter((l) => !address || getAddress(l.address) === getAddress(address)) as unknown as { args: Record<string, any> }[];
}
const one = <const A extends Abi>(receipt: TransactionReceipt, abi: A, name: string, address?: Address) => {
  const all = events(receipt, abi, name, address);
  expect(all, name).toHaveLength(1);
  return all[0]!.args;
};

/** Simulates a call from `wallet` and returns the revert: a require string, or a custom error's name and args. */
async function revertOf(wallet: number, address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []) {
  try {
    await noRetry.simulateContract({ address, abi, functionName, args: args as unknown[], account: accountAddress(wallet) });
  } catch (err) {
    const data = revertData(err);
    if (!data) throw err;
    const decoded = decodeErrorResult({ abi: [...abi, ...ownableErrors] as Abi, data });
    if (decoded.errorName === "Error") return { code: String(decoded.args?.[0]), args: [] as readonly unknown[] };
    return { code: decoded.errorName, args: (decoded.args ?? []) as readonly unknown[] };
  }
  throw new Error(`${functionName} did not revert`);
}
/** The revert data, wherever the in-process chain's error put it. */
function revertData(err: unknown): Hex | undefined {
  let found: Hex | undefined;
  (err as BaseError).walk?.((e) => {
    const d = (e as { data?: unknown }).data;
    if (typeof d === "string" && d.startsWith("0x") && d.length >= 10) found = d as Hex;
    else if (d && typeof d === "object" && typeof (d as { data?: unknown }).data === "string") found = (d as { data: Hex }).data;
    return false;
  });
  const cause = (err as { cause?: unknown }).cause;
  if (!found && cause && cause !== err) return revertData(cause);
  return found;
}
const ownableErrors = parseAbi(["error OwnableUnauthorizedAccount(address account)"]);
const refusal = async (wallet: number, address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []) =>
  (await revertOf(wallet, address, abi, functionName, args)).code;

async function approve(wallet: number, token: Address, spender: Address, amount: bigint) {
  await send(wallet, token, testTokenAbi, "approve", [spender, amount]);
}

async function moveTo(symbol: string, price: number) {
  await f.ctx.send(f.core.marketMaker, marketMakerAbi, "moveTo", [[tok(symbol).pool!], [priceToX18(price)]], f.ctx.keeper);
}

/** Runs the strategy keeper's calls in one MarketMaker batch; none may fail. */
async function runKeeper() {
  const calls = await strategyKeeperCalls(f.ctx, s);
  if (calls.length === 0) return { calls, receipt: undefined };
  const hash = await f.ctx.send(f.core.marketMaker, marketMakerAbi, "executeBatch", [calls.map((c) => c.target), calls.map((c) => c.data)], f.ctx.keeper);
  const receipt = await read().getTransactionReceipt({ hash });
  expect(events(receipt, marketMakerAbi, "CallFailed")).toHaveLength(0);
  return { calls, receipt };
}
const callsFor = (calls: { target: Address; data: Hex }[], target: Address, abi: Abi) =>
  calls.filter((c) => c.target === target).map((c) => decodeFunctionData({ abi, data: c.data }));

/** The gross output of the one pool swap in a receipt. */
const poolOut = (receipt: TransactionReceipt, pool: Address) => one(receipt, poolAbi, "Swap", pool).amountOut as bigint;

beforeAll(async () => {
  f = await bootCore(["strategies"]);
  s = await deployStrategies(f.ctx, f.core);
  noRetry = createPublicClient({ chain: devnetChain, transport: custom(f.chain.provider, { retryCount: 0 }) });
}, 240_000);

// ---------------------------------------------------------------------------------------------------------
describe("limit-order hook", () => {
  const W = 1;
  const owner = accountAddress(W);
  const hook = () => s.limitOrderHook;
  const order = (id: bigint) => read().readContract({ address: hook(), abi: limitOrderHookAbi, functionName: "orders", args: [id] });
  const openIds = () => read().readContract({ address: hook(), abi: limitOrderHookAbi, functionName: "openOrderIds" });
  const fee = BigInt(strategyParams.limitOrder.feeBps);

  it("has its settings", async () => {
    const r = (fn: string) => read().readContract({ address: hook(), abi: limitOrderHookAbi, functionName: fn as "feeBps" });
    expect(await r("feeBps")).toBe(20);
    expect(await r("minOrderUsdg")).toBe(10n * USDG);
    expect(await r("paused")).toBe(false);
    expect(await r("nextId")).toBe(1n);
  });

  it("sell order: places, waits, is partly filled by anyone with an exact commission, is realized, claims token0 then token1", async () => {
    const link = tok("LINK");
    const pool = link.pool!;
    const quoteIs0 = await read().readContract({ address: pool, abi: poolAbi, functionName: "quoteIs0" });
    const amount = 100n * ONE;
    const price = priceToX18(16);
    await approve(W, link.address, hook(), amount);
    const placed = await send(W, hook(), limitOrderHookAbi, "create", [link.address, true, amount, price]);
    const ev = one(placed, limitOrderHookAbi, "OrderPlaced");
    expect(ev).toEqual({ id: 1n, owner, token: link.address, sellToken: true, amountIn: amount, priceX18: price, market: false });
    expect(await balanceOf(link.address, hook())).toBe(amount);
    expect(await openIds()).toEqual([1n]);
    expect(await read().readContract({ address: hook(), abi: limitOrderHookAbi, functionName: "nextId" })).toBe(2n);

    // Not crossed yet: nobody can fill, and the keeper has nothing to do.
    expect(await refusal(STRANGER, hook(), limitOrderHookAbi, "fill", [1n, 0n])).toBe("NOT_CROSSED");
    expect(callsFor(await strategyKeeperCalls(f.ctx, s), hook(), limitOrderHookAbi)).toHaveLength(0);
    expect(await refusal(W, hook(), limitOrderHookAbi, "realize", [1n])).toBe("NOTHING_FILLED");

    // The market rises past the limit; a stranger fills 40 of 100.
    await moveTo("LINK", 16.5);
    const filled = await send(STRANGER, hook(), limitOrderHookAbi, "fill", [1n, 40n * ONE]);
    const gross = poolOut(filled, pool);
    const commission = (gross * fee) / 10_000n;
    expect(gross).toBeGreaterThanOrEqual(tokenToUsdg(40n * ONE, 18, price));
    expect(one(filled, limitOrderHookAbi, "OrderFilled")).toEqual({
      id: 1n,
      owner,
      amountIn: 40n * ONE,
      amountOut: gross - commission,
      commission,
      remaining: 60n * ONE,
    });
    const usdgOwed = gross - commission;
    const [owed0, owed1] = quoteIs0 ? [usdgOwed, 0n] : [0n, usdgOwed];
    expect(one(filled, limitOrderHookAbi, "OrderClaimable")).toEqual({ id: 1n, owner, owed0, owed1 });
    expect(await read().readContract({ address: hook(), abi: limitOrderHookAbi, functionName: "commissions", args: [usdg()] })).toBe(commission);
    let o = await order(1n);
    expect(o).toMatchObject({ active: true, remaining: 60n * ONE, filledIn: 40n * ONE, filledOut: usdgOwed, commission, owed0, owed1 });

    // Only the owner acts on it.
    for (const fn of ["cancel", "realize", "claim0", "claim1", "claimBoth"]) {
      expect(await refusal(STRANGER, hook(), limitOrderHookAbi, fn, [1n])).toBe("NOT_OWNER");
    }

    // Realize: no more fills; the 60 unfilled LINK join the USDG as claimable.
    const realized = await send(W, hook(), limitOrderHookAbi, "realize", [1n]);
    const [r0, r1] = quoteIs0 ? [usdgOwed, 60n * ONE] : [60n * ONE, usdgOwed];
    expect(one(realized, limitOrderHookAbi, "OrderClaimable")).toEqual({ id: 1n, owner, owed0: r0, owed1: r1 });
    expect(await openIds()).toEqual([]);
    expect(await refusal(STRANGER, hook(), limitOrderHookAbi, "fill", [1n, 0n])).toBe("ORDER_CLOSED");
    expect(await refusal(W, hook(), limitOrderHookAbi, "cancel", [1n])).toBe("ORDER_CLOSED");

    // claim0 then claim1 pay each pool token; the second closes the order (reason 2, realized).
    const token0 = await read().readContract({ address: pool, abi: poolAbi, functionName: "token0" });
    const token1 = await read().readContract({ address: pool, abi: poolAbi, functionName: "token1" });
    const before0 = await balanceOf(token0, owner);
    const c0 = await send(W, hook(), limitOrderHookAbi, "claim0", [1n]);
    expect(one(c0, limitOrderHookAbi, "OrderClaimed")).toEqual({ id: 1n, owner, amount0: r0, amount1: 0n });
    expect(events(c0, limitOrderHookAbi, "OrderClosed")).toHaveLength(0);
    expect((await balanceOf(token0, owner)) - before0).toBe(r0);
    expect(await refusal(W, hook(), limitOrderHookAbi, "claim0", [1n])).toBe("NOTHING_TO_CLAIM");
    const before1 = await balanceOf(token1, owner);
    const c1 = await send(W, hook(), limitOrderHookAbi, "claim1", [1n]);
    expect(one(c1, limitOrderHookAbi, "OrderClaimed")).toEqual({ id: 1n, owner, amount0: 0n, amount1: r1 });
    expect(one(c1, limitOrderHookAbi, "OrderClosed")).toEqual({ id: 1n, owner, reason: 2 });
    expect((await balanceOf(token1, owner)) - before1).toBe(r1);
    o = await order(1n);
    expect(o).toMatchObject({ active: false, closed: true, endReason: 2, owed0: 0n, owed1: 0n });
    expect(await refusal(W, hook(), limitOrderHookAbi, "claimBoth", [1n])).toBe("ORDER_CLOSED");
  });

  it("buy order: the keeper fills it in full once the price falls; claimBoth closes it (reason 0)", async () => {
    const link = tok("LINK");
    const amount = 1_000n * USDG;
    const price = priceToX18(15.8);
    await approve(W, usdg(), hook(), amount);
    const placed = await send(W, hook(), limitOrderHookAbi, "create", [link.address, false, amount, price]);
    const id = one(placed, limitOrderHookAbi, "OrderPlaced").id as bigint;
    expect(id).toBe(2n);
    expect(callsFor(await strategyKeeperCalls(f.ctx, s), hook(), limitOrderHookAbi)).toHaveLength(0);

    await moveTo("LINK", 15.5);
    const { calls, receipt } = await runKeeper();
    expect(callsFor(calls, hook(), limitOrderHookAbi)).toEqual([{ functionName: "fill", args: [id, amount] }]);
    const gross = poolOut(receipt!, link.pool!);
    const commission = (gross * fee) / 10_000n;
    expect(one(receipt!, limitOrderHookAbi, "OrderFilled")).toEqual({ id, owner, amountIn: amount, amountOut: gross - commission, commission, remaining: 0n });
    expect(await openIds()).toEqual([]);
    expect(await read().readContract({ address: hook(), abi: limitOrderHookAbi, functionName: "commissions", args: [link.address] })).toBe(commission);

    const before = await balanceOf(link.address, owner);
    const claimed = await send(W, hook(), limitOrderHookAbi, "claimBoth", [id]);
    const got = (await balanceOf(link.address, owner)) - before;
    expect(got).toBe(gross - commission);
    const ev = one(claimed, limitOrderHookAbi, "OrderClaimed");
    expect(ev.amount0 + ev.amount1).toBe(got);
    expect(one(claimed, limitOrderHookAbi, "OrderClosed")).toEqual({ id, owner, reason: 0 });
  });

  it("cancel: the unfilled input comes back through a claim (reason 1)", async () => {
    const link = tok("LINK");
    const amount = 50n * ONE;
    await approve(W, link.address, hook(), amount);
    const id = one(await send(W, hook(), limitOrderHookAbi, "create", [link.address, true, amount, priceToX18(30)]), limitOrderHookAbi, "OrderPlaced")
      .id as bigint;
    const cancelled = await send(W, hook(), limitOrderHookAbi, "cancel", [id]);
    const ev = one(cancelled, limitOrderHookAbi, "OrderClaimable");
    expect(ev.owed0 + ev.owed1).toBe(amount);
    expect(await order(id)).toMatchObject({ active: false, endReason: 1, remaining: 0n });
    expect(await openIds()).not.toContain(id);
    const before = await balanceOf(link.address, owner);
    const claimed = await send(W, hook(), limitOrderHookAbi, "claimBoth", [id]);
    expect((await balanceOf(link.address, owner)) - before).toBe(amount);
    expect(one(claimed, limitOrderHookAbi, "OrderClosed")).toEqual({ id, owner, reason: 1 });
  });

  it("market order: fills at once with the commission taken, at least the minimum", async () => {
    const link = tok("LINK");
    const amount = 500n * USDG;
    const q = await read().readContract({ address: link.pool!, abi: poolAbi, functionName: "quote", args: [usdg(), amount] });
    const net = q - (q * fee) / 10_000n;
    await approve(W, usdg(), hook(), amount * 2n);
    expect(await refusal(W, hook(), limitOrderHookAbi, "createMarketOrder", [link.address, false, amount, net + 1n])).toBe("SLIPPAGE");
    const receipt = await send(W, hook(), limitOrderHookAbi, "createMarketOrder", [link.address, false, amount, net]);
    const placed = one(receipt, limitOrderHookAbi, "OrderPlaced");
    expect(placed).toMatchObject({ owner, token: link.address, sellToken: false, amountIn: amount, market: true });
    const id = placed.id as bigint;
    expect(one(receipt, limitOrderHookAbi, "OrderFilled")).toEqual({ id, owner, amountIn: amount, amountOut: net, commission: q - net, remaining: 0n });
    expect(await openIds()).not.toContain(id);
    const before = await balanceOf(link.address, owner);
    await send(W, hook(), limitOrderHookAbi, "claimBoth", [id]);
    expect((await balanceOf(link.address, owner)) - before).toBe(net);
  });

  it("refuses: no market, too small, paused", async () => {
    const link = tok("LINK").address;
    await approve(W, usdg(), hook(), 1_000n * USDG);
    expect(await refusal(W, hook(), limitOrderHookAbi, "create", [usdg(), false, 100n * USDG, ONE])).toBe("MARKET_NOT_OPEN");
    expect(await refusal(W, hook(), limitOrderHookAbi, "create", [link, false, 9n * USDG, priceToX18(10)])).toBe("AMOUNT_TOO_SMALL");
    // A sell is valued at its limit price: 0.5 LINK at 15 is 7.5 USDG.
    expect(await refusal(W, hook(), limitOrderHookAbi, "create", [link, true, ONE / 2n, priceToX18(15)])).toBe("AMOUNT_TOO_SMALL");
    const paused = await sendAdmin(hook(), limitOrderHookAbi, "setPaused", [true]);
    expect(one(paused, limitOrderHookAbi, "Paused")).toEqual({ paused: true });
    expect(await read().readContract({ address: hook(), abi: limitOrderHookAbi, functionName: "paused" })).toBe(true);
    expect(await refusal(W, hook(), limitOrderHookAbi, "create", [link, false, 100n * USDG, priceToX18(10)])).toBe("PAUSED");
    expect(await refusal(W, hook(), limitOrderHookAbi, "createMarketOrder", [link, false, 100n * USDG, 0n])).toBe("PAUSED");
    expect((await revertOf(W, hook(), limitOrderHookAbi, "setPaused", [false])).code).toBe("OwnableUnauthorizedAccount");
    await sendAdmin(hook(), limitOrderHookAbi, "setPaused", [false]);
  });
});

// ---------------------------------------------------------------------------------------------------------
describe("grid strategy", () => {
  const W = 2;
  const owner = accountAddress(W);
  const grid = () => s.gridStrategy;
  const gridOf = (id: bigint) => read().readContract({ address: grid(), abi: gridStrategyAbi, functionName: "grids", args: [id] });
  const openIds = () => read().readContract({ address: grid(), abi: gridStrategyAbi, functionName: "openGridIds" });
  const fee = BigInt(strategyParams.grid.feeBps);
  const params = (over: Partial<{ buyPriceX18: bigint; sellPriceX18: bigint; amountUsdg: bigint; repeat: boolean; token: Address }> = {}) => ({
    token: tok("SOLX").address,
    buyPriceX18: priceToX18(140),
    sellPriceX18: priceToX18(160),
    amountUsdg: 1_000n * USDG,
    repeat: true,
    ...over,
  });

  it("opens, buys at the buy line, sells at the sell line (fees exact), collects the profit, stops without repeat, closes", async () => {
    const solx = tok("SOLX");
    const p = params();
    await approve(W, usdg(), grid(), p.amountUsdg);
    const opened = await send(W, grid(), gridStrategyAbi, "open", [p]);
    expect(one(opened, gridStrategyAbi, "GridOpened")).toEqual({
      id: 1n,
      owner,
      token: solx.address,
      buyPriceX18: p.buyPriceX18,
      sellPriceX18: p.sellPriceX18,
      amountUsdg: p.amountUsdg,
      repeat: true,
    });
    expect(await gridOf(1n)).toMatchObject({ owner, active: true, holdsToken: false, usdg: p.amountUsdg, tokens: 0n });
    expect(await openIds()).toEqual([1n]);
    expect(await refusal(STRANGER, grid(), gridStrategyAbi, "poke", [1n])).toBe("NOT_CROSSED");
    expect(callsFor(await strategyKeeperCalls(f.ctx, s), grid(), gridStrategyAbi)).toHaveLength(0);

    // Buy: anyone pokes once the pool pays at the buy line. The fee is 0.3% of the USDG put in.
    await moveTo("SOLX", 138);
    const bought = await send(STRANGER, grid(), gridStrategyAbi, "poke", [1n]);
    const buyFee = (p.amountUsdg * fee) / 10_000n;
    const tokens = poolOut(bought, solx.pool!);
    expect(one(bought, gridStrategyAbi, "GridTraded")).toEqual({ id: 1n, owner, buy: true, amountIn: p.amountUsdg, amountOut: tokens, fee: buyFee });
    expect(await gridOf(1n)).toMatchObject({ holdsToken: true, usdg: 0n, tokens });
    expect(await refusal(W, grid(), gridStrategyAbi, "collect", [1n])).toBe("NOTHING_TO_COLLECT");

    // Sell: the keeper pokes it; the fee is 0.3% of the USDG received.
    await moveTo("SOLX", 162);
    const { calls, receipt } = await runKeeper();
    expect(callsFor(calls, grid(), gridStrategyAbi)).toEqual([{ functionName: "poke", args: [1n] }]);
    const gross = poolOut(receipt!, solx.pool!);
    const sellFee = (gross * fee) / 10_000n;
    expect(one(receipt!, gridStrategyAbi, "GridTraded")).toEqual({ id: 1n, owner, buy: false, amountIn: tokens, amountOut: gross - sellFee, fee: sellFee });
    const held = gross - sellFee;
    expect(held).toBeGreaterThan(p.amountUsdg);
    expect(await gridOf(1n)).toMatchObject({ holdsToken: false, usdg: held, tokens: 0n, trades: 2n, fees: buyFee + sellFee });
    expect(await read().readContract({ address: grid(), abi: gridStrategyAbi, functionName: "feesUsdg" })).toBe(buyFee + sellFee);
    expect(await openIds()).toEqual([1n]); // repeat: waits to buy again

    // Collect the profit above the starting amount.
    const before = await balanceOf(usdg(), owner);
    const collected = await send(W, grid(), gridStrategyAbi, "collect", [1n]);
    expect(one(collected, gridStrategyAbi, "GridCollected")).toEqual({ id: 1n, owner, amountUsdg: held - p.amountUsdg });
    expect((await balanceOf(usdg(), owner)) - before).toBe(held - p.amountUsdg);
    expect(await refusal(W, grid(), gridStrategyAbi, "collect", [1n])).toBe("NOTHING_TO_COLLECT");

    // Repeat off: one more round trip, then it stops.
    expect(await refusal(STRANGER, grid(), gridStrategyAbi, "setRepeat", [1n, false])).toBe("NOT_OWNER");
    const rep = await send(W, grid(), gridStrategyAbi, "setRepeat", [1n, false]);
    expect(one(rep, gridStrategyAbi, "GridRepeatSet")).toEqual({ id: 1n, owner, repeat: false });
    await moveTo("SOLX", 138);
    await send(STRANGER, grid(), gridStrategyAbi, "poke", [1n]);
    await moveTo("SOLX", 162);
    const sold = await send(STRANGER, grid(), gridStrategyAbi, "poke", [1n]);
    expect(one(sold, gridStrategyAbi, "GridTraded").buy).toBe(false);
    expect(await openIds()).toEqual([]);
    expect(await gridOf(1n)).toMatchObject({ active: false, closed: false, repeat: false });
    expect(await refusal(STRANGER, grid(), gridStrategyAbi, "poke", [1n])).toBe("GRID_CLOSED");

    // Close pays everything it holds.
    const g = await gridOf(1n);
    expect(await refusal(STRANGER, grid(), gridStrategyAbi, "close", [1n])).toBe("NOT_OWNER");
    const usdgBefore = await balanceOf(usdg(), owner);
    const closed = await send(W, grid(), gridStrategyAbi, "close", [1n]);
    expect(one(closed, gridStrategyAbi, "GridClosed")).toEqual({ id: 1n, owner, usdgOut: g.usdg, tokenOut: 0n });
    expect((await balanceOf(usdg(), owner)) - usdgBefore).toBe(g.usdg);
    expect(await gridOf(1n)).toMatchObject({ closed: true, usdg: 0n, tokens: 0n });
    expect(await refusal(W, grid(), gridStrategyAbi, "close", [1n])).toBe("GRID_CLOSED");
    expect(await refusal(W, grid(), gridStrategyAbi, "setRepeat", [1n, true])).toBe("GRID_CLOSED");
  });

  it("openWithMarket buys at once and waits to sell; close pays the token", async () => {
    const solx = tok("SOLX");
    const p = params({ buyPriceX18: priceToX18(150), sellPriceX18: priceToX18(180), repeat: false });
    const feeIn = (p.amountUsdg * fee) / 10_000n;
    const q = await read().readContract({ address: solx.pool!, abi: poolAbi, functionName: "quote", args: [usdg(), p.amountUsdg - feeIn] });
    await approve(W, usdg(), grid(), p.amountUsdg);
    const receipt = await send(W, grid(), gridStrategyAbi, "openWithMarket", [p, q]);
    const id = one(receipt, gridStrategyAbi, "GridOpened").id as bigint;
    expect(one(receipt, gridStrategyAbi, "GridTraded")).toEqual({ id, owner, buy: true, amountIn: p.amountUsdg, amountOut: q, fee: feeIn });
    expect(await gridOf(id)).toMatchObject({ holdsToken: true, tokens: q, usdg: 0n, active: true });
    expect(await openIds()).toEqual([id]);
    const before = await balanceOf(solx.address, owner);
    const closed = await send(W, grid(), gridStrategyAbi, "close", [id]);
    expect(one(closed, gridStrategyAbi, "GridClosed")).toEqual({ id, owner, usdgOut: 0n, tokenOut: q });
    expect((await balanceOf(solx.address, owner)) - before).toBe(q);
    expect(await openIds()).toEqual([]);
  });

  it("refuses: bad lines, too small, no market, paused", async () => {
    await approve(W, usdg(), grid(), 10_000n * USDG);
    expect(await refusal(W, grid(), gridStrategyAbi, "open", [params({ sellPriceX18: priceToX18(140) })])).toBe("BAD_LINES");
    expect(await refusal(W, grid(), gridStrategyAbi, "open", [params({ amountUsdg: 9n * USDG })])).toBe("AMOUNT_TOO_SMALL");
    expect(await refusal(W, grid(), gridStrategyAbi, "open", [params({ token: usdg() })])).toBe("MARKET_NOT_OPEN");
    await sendAdmin(grid(), gridStrategyAbi, "setPaused", [true]);
    expect(await refusal(W, grid(), gridStrategyAbi, "open", [params()])).toBe("PAUSED");
    expect(await refusal(W, grid(), gridStrategyAbi, "openWithMarket", [params(), 0n])).toBe("PAUSED");
    await sendAdmin(grid(), gridStrategyAbi, "setPaused", [false]);
  });
});

// ---------------------------------------------------------------------------------------------------------
type Leg = { buyPriceX18: bigint; sellPriceX18: bigint; amount: bigint };
const leg = (buy: number, sell: number, amount: bigint): Leg => ({ buyPriceX18: priceToX18(buy), sellPriceX18: priceToX18(sell), amount });

describe("ladder strategy", () => {
  const W = 3;
  const owner = accountAddress(W);
  const ladder = () => s.ladderStrategy;
  const r = <T>(functionName: string, args: readonly unknown[] = []) =>
    read().readContract({ address: ladder(), abi: ladderStrategyAbi as Abi, functionName, args: args as unknown[] }) as Promise<T>;
  const legsOf = (id: bigint) => read().readContract({ address: ladder(), abi: ladderStrategyAbi, functionName: "legsOf", args: [id] });
  const openIds = () => r<bigint[]>("openLadderIds");
  const fee = BigInt(strategyParams.ladder.feeBps);

  it("lists most markets, one closed and one unlisted", async () => {
    expect(await r("feeBps")).toBe(30);
    expect(await r("maxLegs")).toBe(16n);
    expect(await r("paused")).toBe(false);
    expect(await r("minFirstLegUsdg")).toBe(10n * USDG);
    expect(await r("minFollowUpUsdg")).toBe(5n * USDG);
    const listed = await r<Address[]>("markets");
    const expected = f.core.tokens.filter((t) => t.pool && t.symbol !== "SCAM").map((t) => t.address);
    expect(listed).toEqual(expected);
    expect(await r("isListed", [tok("SCAM").address])).toBe(false);
    expect(await r("isListed", [tok("tsSPY").address])).toBe(true);
    expect(await r("marketOpen", [tok("tsSPY").address])).toBe(false);
    expect(await r("marketOpen", [tok("ORCL").address])).toBe(true);
    expect(await r("pausable", [tok("tsAAPL").address])).toBe(true);
    expect(await r("pausable", [tok("ORCL").address])).toBe(false);
    expect(await refusal(10, ladder(), ladderStrategyAbi, "setMarketOpen", [tok("ORCL").address, false])).toBe("NOT_PAUSABLE");
    // Open/close a pausable market, with events.
    const closed = await sendAdmin(ladder(), ladderStrategyAbi, "setMarketOpen", [tok("tsAAPL").address, false]);
    expect(one(closed, ladderStrategyAbi, "MarketOpenSet")).toEqual({ token: tok("tsAAPL").address, open: false });
    await sendAdmin(ladder(), ladderStrategyAbi, "setMarketOpen", [tok("tsAAPL").address, true]);
  });

  it("3 buy-first legs: one buys and sells and finishes; collect, setRepeat, close with masks", async () => {
    const orcl = tok("ORCL");
    const legs = [leg(11.5, 12.5, 100n * USDG), leg(11, 13, 50n * USDG), leg(10, 14, 50n * USDG)];
    await approve(W, usdg(), ladder(), 200n * USDG);
    const opened = await send(W, ladder(), ladderStrategyAbi, "open", [orcl.address, legs, false, false, false]);
    expect(one(opened, ladderStrategyAbi, "LadderOpened")).toEqual({
      id: 1n,
      owner,
      token: orcl.address,
      legs: 3n,
      sellFirst: false,
      repeat: false,
      oneWay: false,
      total: 200n * USDG,
    });
    expect(await read().readContract({ address: usdg(), abi: testTokenAbi, functionName: "allowance", args: [owner, ladder()] })).toBe(0n);
    expect(await r("ladders", [1n])).toMatchObject({
      owner,
      token: orcl.address,
      pool: orcl.pool,
      sellFirst: false,
      oneWay: false,
      repeatMask: 0,
      active: true,
      closed: false,
      legs: 3n,
      total: 200n * USDG,
    });
    expect((await legsOf(1n)).map((l) => [l.usdg, l.tokens, l.holdsToken, l.finished])).toEqual([
      [100n * USDG, 0n, false, false],
      [50n * USDG, 0n, false, false],
      [50n * USDG, 0n, false, false],
    ]);
    expect(await openIds()).toEqual([1n]);
    expect(await refusal(STRANGER, ladder(), ladderStrategyAbi, "poke", [1n])).toBe("NOT_CROSSED");

    // Leg 0 buys (a stranger pokes); the others wait.
    await moveTo("ORCL", 11.2);
    const bought = await send(STRANGER, ladder(), ladderStrategyAbi, "poke", [1n]);
    const tokens0 = poolOut(bought, orcl.pool!);
    expect(one(bought, ladderStrategyAbi, "LadderTraded")).toEqual({
      id: 1n,
      owner,
      leg: 0n,
      buy: true,
      amountIn: 100n * USDG,
      amountOut: tokens0,
      fee: (100n * USDG * fee) / 10_000n,
    });

    // Leg 0 sells through the keeper and, without repeat, finishes.
    await moveTo("ORCL", 12.8);
    const { calls, receipt } = await runKeeper();
    expect(callsFor(calls, ladder(), ladderStrategyAbi)).toEqual([{ functionName: "poke", args: [1n] }]);
    const gross = poolOut(receipt!, orcl.pool!);
    const sellFee = (gross * fee) / 10_000n;
    expect(one(receipt!, ladderStrategyAbi, "LadderTraded")).toEqual({
      id: 1n,
      owner,
      leg: 0n,
      buy: false,
      amountIn: tokens0,
      amountOut: gross - sellFee,
      fee: sellFee,
    });
    expect(one(receipt!, ladderStrategyAbi, "LadderLegFinished")).toEqual({ id: 1n, owner, leg: 0n });
    const leg0 = gross - sellFee;
    expect((await legsOf(1n))[0]).toMatchObject({ finished: true, usdg: leg0, tokens: 0n, trades: 2n });
    expect(await r("collectable", [1n])).toEqual([0n, leg0]);

    // collect: the token side has nothing; the USDG side pays the finished leg.
    expect(await refusal(W, ladder(), ladderStrategyAbi, "collect", [1n, 1])).toBe("NOTHING_TO_COLLECT");
    expect(await refusal(W, ladder(), ladderStrategyAbi, "collect", [1n, 0])).toBe("BAD_MASK");
    expect(await refusal(STRANGER, ladder(), ladderStrategyAbi, "collect", [1n, 2])).toBe("NOT_OWNER");
    let before = await balanceOf(usdg(), owner);
    const c = await send(W, ladder(), ladderStrategyAbi, "collect", [1n, 2]);
    expect(one(c, ladderStrategyAbi, "LadderCollected")).toEqual({ id: 1n, owner, tokenOut: 0n, usdgOut: leg0 });
    expect((await balanceOf(usdg(), owner)) - before).toBe(leg0);

    // setRepeat (USDG side): leg 1 buys, sells, and waits to buy again; its profit is collectable.
    expect(await refusal(W, ladder(), ladderStrategyAbi, "setRepeat", [1n, 0])).toBe("BAD_MASK");
    const rep = await send(W, ladder(), ladderStrategyAbi, "setRepeat", [1n, 3]);
    expect(one(rep, ladderStrategyAbi, "LadderRepeatSet")).toEqual({ id: 1n, owner, mask: 3 });
    await moveTo("ORCL", 10.8);
    expect(one(await send(STRANGER, ladder(), ladderStrategyAbi, "poke", [1n]), ladderStrategyAbi, "LadderTraded")).toMatchObject({ leg: 1n, buy: true });
    await moveTo("ORCL", 13.2);
    const sold = await send(STRANGER, ladder(), ladderStrategyAbi, "poke", [1n]);
    expect(one(sold, ladderStrategyAbi, "LadderTraded")).toMatchObject({ leg: 1n, buy: false });
    expect(events(sold, ladderStrategyAbi, "LadderLegFinished")).toHaveLength(0);
    const leg1 = (await legsOf(1n))[1]!;
    expect(leg1).toMatchObject({ finished: false, holdsToken: false });
    expect(leg1.usdg).toBeGreaterThan(50n * USDG);
    const profit = await send(W, ladder(), ladderStrategyAbi, "collect", [1n, 3]);
    expect(one(profit, ladderStrategyAbi, "LadderCollected")).toEqual({ id: 1n, owner, tokenOut: 0n, usdgOut: leg1.usdg - 50n * USDG });

    // close with mask 0: every leg finishes, nothing is paid; a later collect pays the rest.
    expect(await refusal(W, ladder(), ladderStrategyAbi, "close", [1n, 4])).toBe("BAD_MASK");
    expect(await refusal(STRANGER, ladder(), ladderStrategyAbi, "close", [1n, 0])).toBe("NOT_OWNER");
    const closed = await send(W, ladder(), ladderStrategyAbi, "close", [1n, 0]);
    expect(events(closed, ladderStrategyAbi, "LadderLegFinished").map((e) => e.args.leg)).toEqual([1n, 2n]);
    expect(events(closed, ladderStrategyAbi, "LadderCollected")).toHaveLength(0);
    expect(one(closed, ladderStrategyAbi, "LadderClosed")).toEqual({ id: 1n, owner, mask: 0 });
    expect(await openIds()).toEqual([]);
    expect(await refusal(W, ladder(), ladderStrategyAbi, "close", [1n, 3])).toBe("LADDER_CLOSED");
    expect(await refusal(W, ladder(), ladderStrategyAbi, "setRepeat", [1n, 3])).toBe("LADDER_CLOSED");
    expect(await refusal(STRANGER, ladder(), ladderStrategyAbi, "poke", [1n])).toBe("LADDER_CLOSED");
    before = await balanceOf(usdg(), owner);
    const rest = await send(W, ladder(), ladderStrategyAbi, "collect", [1n, 3]);
    expect(one(rest, ladderStrategyAbi, "LadderCollected")).toEqual({ id: 1n, owner, tokenOut: 0n, usdgOut: 100n * USDG });
    expect((await balanceOf(usdg(), owner)) - before).toBe(100n * USDG);
    expect(await r("collectable", [1n])).toEqual([0n, 0n]);
  });

  it("sell-first one-way legs: a leg sells and finishes; close with mask 3 pays both sides", async () => {
    const orcl = tok("ORCL"); // at about 13.2
    const legs = [leg(12.5, 14, 2n * ONE), leg(13, 15, ONE)];
    await approve(W, orcl.address, ladder(), 3n * ONE);
    const opened = await send(W, ladder(), ladderStrategyAbi, "open", [orcl.address, legs, true, false, true]);
    const id = one(opened, ladderStrategyAbi, "LadderOpened").id as bigint;
    expect(one(opened, ladderStrategyAbi, "LadderOpened")).toMatchObject({ sellFirst: true, oneWay: true, total: 3n * ONE });
    await moveTo("ORCL", 14.5);
    const { receipt } = await runKeeper();
    const gross = poolOut(receipt!, orcl.pool!);
    const usdgOut = gross - (gross * fee) / 10_000n;
    expect(one(receipt!, ladderStrategyAbi, "LadderTraded")).toEqual({
      id,
      owner,
      leg: 0n,
      buy: false,
      amountIn: 2n * ONE,
      amountOut: usdgOut,
      fee: gross - usdgOut,
    });
    expect(one(receipt!, ladderStrategyAbi, "LadderLegFinished")).toEqual({ id, owner, leg: 0n });
    const [tBefore, uBefore] = [await balanceOf(orcl.address, owner), await balanceOf(usdg(), owner)];
    const closed = await send(W, ladder(), ladderStrategyAbi, "close", [id, 3]);
    expect(one(closed, ladderStrategyAbi, "LadderLegFinished")).toEqual({ id, owner, leg: 1n });
    expect(one(closed, ladderStrategyAbi, "LadderCollected")).toEqual({ id, owner, tokenOut: ONE, usdgOut });
    expect(one(closed, ladderStrategyAbi, "LadderClosed")).toEqual({ id, owner, mask: 3 });
    expect((await balanceOf(orcl.address, owner)) - tBefore).toBe(ONE);
    expect((await balanceOf(usdg(), owner)) - uBefore).toBe(usdgOut);
    expect(await refusal(W, ladder(), ladderStrategyAbi, "collect", [id, 3])).toBe("NOTHING_TO_COLLECT");
  });

  it("refuses every open in the documented order, naming the leg and the exact bound", async () => {
    const orcl = tok("ORCL").address;
    await approve(W, usdg(), ladder(), 10_000n * USDG);
    await approve(W, orcl, ladder(), 10_000n * ONE);
    const spot = await read().readContract({ address: f.core.markets, abi: marketRegistryAbi, functionName: "priceX18", args: [orcl] });
    const p = Number(spot) / 1e18;
    const ok = [leg(p * 0.9, p * 1.1, 20n * USDG)];
    const open = (token: Address, legs: Leg[], sellFirst = false) => revertOf(W, ladder(), ladderStrategyAbi, "open", [token, legs, sellFirst, false, false]);

    await sendAdmin(ladder(), ladderStrategyAbi, "setPaused", [true]);
    expect((await open(orcl, ok)).code).toBe("PAUSED");
    await sendAdmin(ladder(), ladderStrategyAbi, "setPaused", [false]);
    expect(await refusal(STRANGER, ladder(), ladderStrategyAbi, "poke", [99n])).toBe("LADDER_CLOSED");
    expect((await open(tok("SCAM").address, ok)).code).toBe("NOT_LISTED");
    expect((await open(tok("tsSPY").address, ok)).code).toBe("MARKET_NOT_OPEN");
    expect((await open(orcl, [])).code).toBe("NO_LEGS");
    expect(
      (
        await open(
          orcl,
          Array.from({ length: 17 }, () => ok[0]!),
        )
      ).code,
    ).toBe("TOO_MANY_LEGS");

    // NO_REFERENCE: a listed market whose pool has no liquidity yet.
    const fresh = await f.ctx.deploy("TestToken", ["Fresh", "FRESH", 18, f.ctx.admin]);
    await sendAdmin(f.core.markets, marketRegistryAbi, "createPool", [fresh]);
    const listed = await sendAdmin(ladder(), ladderStrategyAbi, "listMarket", [fresh, false]);
    expect(one(listed, ladderStrategyAbi, "MarketListed")).toEqual({ token: fresh, pausable: false });
    expect((await open(fresh, ok)).code).toBe("NO_REFERENCE");

    // WRONG_SIDE names the leg and the price now; it comes before the size checks.
    expect(await open(orcl, [ok[0]!, leg(p * 1.01, p * 1.2, 1n)])).toEqual({ code: "WRONG_SIDE", args: [1n, spot] });
    expect(await open(orcl, [leg(p * 0.9, p * 0.95, 20n * USDG)], true)).toEqual({ code: "WRONG_SIDE", args: [0n, spot] });
    expect(await open(orcl, [leg(p * 0.9, p * 1.1, 10n * USDG - 1n)])).toEqual({ code: "FIRST_TOO_SMALL", args: [0n, 10n * USDG] });
    expect(await open(orcl, [ok[0]!, ok[0]!, leg(p * 0.8, p * 1.1, 5n * USDG - 1n)])).toEqual({ code: "FOLLOW_UP_TOO_SMALL", args: [2n, 5n * USDG] });
    // Sell-first minimums are in the token, at the leg's sell line, rounded up.
    const sell = priceToX18(p * 1.25);
    const minToken = (10n * USDG * 10n ** 12n * ONE + sell - 1n) / sell;
    const sellLeg = { buyPriceX18: priceToX18(p), sellPriceX18: sell, amount: minToken - 1n };
    expect(await open(orcl, [sellLeg], true)).toEqual({ code: "FIRST_TOO_SMALL", args: [0n, minToken] });
    expect(await r("minLegAmount", [0n, true, sell, 18])).toBe(minToken);
    // Headroom: sell/buy - 1 must exceed 2 x 0.3%.
    const buy = priceToX18(p * 0.9);
    const minSell = (buy * 10_060n) / 10_000n + 1n;
    const tight = { buyPriceX18: buy, sellPriceX18: minSell - 1n, amount: 20n * USDG };
    expect(await open(orcl, [ok[0]!, tight])).toEqual({ code: "NO_TRIP_HEADROOM", args: [1n, minSell] });
    // At the bound it opens.
    const opened = await send(W, ladder(), ladderStrategyAbi, "open", [orcl, [ok[0]!, { ...tight, sellPriceX18: minSell }], false, false, false]);
    const id = one(opened, ladderStrategyAbi, "LadderOpened").id as bigint;
    await send(W, ladder(), ladderStrategyAbi, "close", [id, 3]);
  });
});

// ---------------------------------------------------------------------------------------------------------
describe("agent accounts", () => {
  const OWNER = 4;
  const AGENT = 5;
  const owner = accountAddress(OWNER);
  const agent = accountAddress(AGENT);
  const factory = () => s.agentAccountFactory;
  const limits = { floorX18: priceToX18(2), ceilingX18: priceToX18(3.5), budgetUsdg: 100n * USDG, feeCapBps: 50, minSpreadBps: 500 };
  let account: Address;
  const gas = () => tok("GAS").address;
  const openData = (legs: Leg[], sellFirst = false) =>
    encodeFunctionData({ abi: ladderStrategyAbi, functionName: "open", args: [gas(), legs, sellFirst, true, false] });
  const callAbi = [...agentAccountAbi, ...ladderStrategyAbi.filter((x) => x.type === "error")] as Abi;
  const agentRefusal = (data: Hex, wallet = AGENT) => revertOf(wallet, account, callAbi, "ladder", [data]);

  it("the owner creates an account for an agent, one per owner", async () => {
    const created = await send(OWNER, factory(), agentAccountFactoryAbi, "create", [agent, limits]);
    const ev = one(created, agentAccountFactoryAbi, "AccountCreated");
    account = ev.account as Address;
    expect(ev).toEqual({ account, owner, agent });
    expect(await read().readContract({ address: factory(), abi: agentAccountFactoryAbi, functionName: "accountOf", args: [owner] })).toBe(account);
    expect(await read().readContract({ address: account, abi: agentAccountAbi, functionName: "owner" })).toBe(owner);
    expect(await read().readContract({ address: account, abi: agentAccountAbi, functionName: "agent" })).toBe(agent);
    expect(await read().readContract({ address: account, abi: agentAccountAbi, functionName: "limits" })).toEqual(limits);
    expect(await refusal(OWNER, factory(), agentAccountFactoryAbi, "create", [agent, limits])).toBe("ACCOUNT_EXISTS");
    await send(OWNER, usdg(), testTokenAbi, "transfer", [account, 200n * USDG]);
    expect(await balanceOf(usdg(), account)).toBe(200n * USDG);
  });

  it("the agent opens a ladder within the limits: exact approval, committed USDG, the account owns it", async () => {
    const legs = [leg(2.3, 2.7, 30n * USDG), leg(2.1, 2.9, 20n * USDG)];
    const receipt = await send(AGENT, account, agentAccountAbi, "ladder", [openData(legs)]);
    const call = one(receipt, agentAccountAbi, "AgentCall");
    expect(call).toEqual({ account, agent, selector: openData(legs).slice(0, 10), committedUsdg: 50n * USDG });
    const opened = one(receipt, ladderStrategyAbi, "LadderOpened");
    expect(opened).toMatchObject({ owner: account, token: gas(), legs: 2n, total: 50n * USDG, repeat: true });
    expect(await balanceOf(usdg(), account)).toBe(150n * USDG);
    expect(await read().readContract({ address: usdg(), abi: testTokenAbi, functionName: "allowance", args: [account, s.ladderStrategy] })).toBe(0n);
    expect(await read().readContract({ address: account, abi: agentAccountAbi, functionName: "committedUsdg" })).toBe(50n * USDG);

    // The agent manages it through the account; payouts come back to the account.
    const id = opened.id as bigint;
    const rep = await send(AGENT, account, agentAccountAbi, "ladder", [
      encodeFunctionData({ abi: ladderStrategyAbi, functionName: "setRepeat", args: [id, 1] }),
    ]);
    expect(one(rep, ladderStrategyAbi, "LadderRepeatSet")).toEqual({ id, owner: account, mask: 1 });
    expect(one(rep, agentAccountAbi, "AgentCall").committedUsdg).toBe(0n);
    const closed = await send(AGENT, account, agentAccountAbi, "ladder", [
      encodeFunctionData({ abi: ladderStrategyAbi, functionName: "close", args: [id, 3] }),
    ]);
    expect(one(closed, ladderStrategyAbi, "LadderClosed")).toEqual({ id, owner: account, mask: 3 });
    expect(await balanceOf(usdg(), account)).toBe(200n * USDG);
    expect(await agentRefusal(encodeFunctionData({ abi: ladderStrategyAbi, functionName: "collect", args: [id, 3] }))).toEqual({
      code: "NOTHING_TO_COLLECT",
      args: [],
    });
  });

  it("refuses each limit, a stranger, other calls, and everything while accounts are off", async () => {
    const good = [leg(2.3, 2.7, 20n * USDG)];
    expect((await agentRefusal(openData(good), STRANGER)).code).toBe("NOT_AGENT");
    expect((await agentRefusal(openData([leg(1.9, 2.7, 20n * USDG)]))).code).toBe("FLOOR");
    expect((await agentRefusal(openData([leg(2.3, 3.6, 20n * USDG)]))).code).toBe("CEILING");
    expect((await agentRefusal(openData([leg(2.3, 2.7, 51n * USDG)]))).code).toBe("BUDGET"); // 50 committed already
    // A sell-first leg commits its token amount at its sell line: 20 GAS at 2.7 is 54 USDG.
    expect((await agentRefusal(openData([leg(2.3, 2.7, 20n * ONE)], true))).code).toBe("BUDGET");
    expect((await agentRefusal(openData([leg(2.3, 2.4, 20n * USDG)]))).code).toBe("SPREAD");
    // A ladder refusal comes through the account unchanged.
    expect(await agentRefusal(openData([leg(2.3, 2.7, 9n * USDG)]))).toEqual({ code: "FIRST_TOO_SMALL", args: [0n, 10n * USDG] });
    expect((await agentRefusal(encodeFunctionData({ abi: ladderStrategyAbi, functionName: "setPaused", args: [true] }))).code).toBe("NOT_ALLOWED");
    expect((await agentRefusal(encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [agent, 1n] }))).code).toBe("NOT_ALLOWED");

    // The owner tightens the limits: fee cap under the ladder's fee; a ceiling is required.
    expect(await refusal(AGENT, account, agentAccountAbi, "setLimits", [limits])).toBe("NOT_OWNER");
    const set = await send(OWNER, account, agentAccountAbi, "setLimits", [{ ...limits, feeCapBps: 20 }]);
    expect(one(set, agentAccountAbi, "LimitsSet")).toEqual({ account, ...limits, feeCapBps: 20 });
    expect((await agentRefusal(openData(good))).code).toBe("FEE_CAP");
    await send(OWNER, account, agentAccountAbi, "setLimits", [{ ...limits, ceilingX18: 0n }]);
    expect((await agentRefusal(openData(good))).code).toBe("CEILING");
    await send(OWNER, account, agentAccountAbi, "setLimits", [limits]);

    // The feature switch.
    const off = await sendAdmin(factory(), agentAccountFactoryAbi, "setEnabled", [false]);
    expect(one(off, agentAccountFactoryAbi, "EnabledSet")).toEqual({ enabled: false });
    expect((await agentRefusal(openData(good))).code).toBe("ACCOUNTS_DISABLED");
    expect(await refusal(6, factory(), agentAccountFactoryAbi, "create", [agent, limits])).toBe("ACCOUNTS_DISABLED");
    await sendAdmin(factory(), agentAccountFactoryAbi, "setEnabled", [true]);
    const { result } = await noRetry.simulateContract({
      address: account,
      abi: agentAccountAbi,
      functionName: "ladder",
      args: [openData(good)],
      account: agent,
    });
    expect(result).toMatch(/^0x/);
  });

  it("the owner withdraws to itself; nobody else can", async () => {
    expect(await refusal(AGENT, account, agentAccountAbi, "withdraw", [usdg(), 1n])).toBe("NOT_OWNER");
    const before = await balanceOf(usdg(), owner);
    const w = await send(OWNER, account, agentAccountAbi, "withdraw", [usdg(), 200n * USDG]);
    expect(one(w, agentAccountAbi, "Withdrawn")).toEqual({ account, token: usdg(), amount: 200n * USDG });
    expect((await balanceOf(usdg(), owner)) - before).toBe(200n * USDG);
    expect(await balanceOf(usdg(), account)).toBe(0n);
  });
});
