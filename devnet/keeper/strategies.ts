// Strategies keeper: fills crossed limit orders and pokes crossed grids and ladders. It reads the keeper
// views (openOrderIds, openGridIds, openLadderIds) and returns only calls that will succeed: it prices
// each pool as MarketRegistry.priceX18 does (PriceMath.spot over the reserves) and replays the pool's
// quote formula locally, updating the reserves after every planned trade, so that calls later in the
// same MarketMaker batch see the prices the earlier ones leave behind.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { gridStrategyAbi, ladderStrategyAbi, limitOrderHookAbi, poolAbi } from "../../abis/index.js";
import { spotPriceX18, tokenToUsdg, usdgToToken } from "../../src/domain/price.js";
import type { DeployContext } from "../deploy/context.js";

export type StrategyKeeperInput = {
  limitOrderHook: Address;
  gridStrategy: Address;
  ladderStrategy: Address;
  /** Agent accounts have no keeper work (their ladders are in openLadderIds); accepted for symmetry. */
  agentAccountFactory?: Address;
};

type Call = { target: Address; data: Hex };

/** A partial fill must be worth at least this (USDG base units) unless it fills the whole order. */
const MIN_PARTIAL_FILL_USDG = 1_000_000n;

/** A local copy of one pool, advanced as the planned calls would advance it. */
type PoolModel = { decimals: number; feeBps: bigint; reserveToken: bigint; reserveUsdg: bigint };

export async function strategyKeeperCalls(ctx: DeployContext, d: StrategyKeeperInput): Promise<Call[]> {
  const read = ctx.chain.publicClient;
  const pools = new Map<Address, PoolModel>();
  const poolOf = async (pool: Address): Promise<PoolModel> => {
    let m = pools.get(pool);
    if (!m) {
      const [[reserveToken, reserveUsdg], decimals, feeBps] = await Promise.all([
        read.readContract({ address: pool, abi: poolAbi, functionName: "getReserves" }),
        read.readContract({ address: pool, abi: poolAbi, functionName: "tokenDecimals" }),
        read.readContract({ address: pool, abi: poolAbi, functionName: "feeBps" }),
      ]);
      m = { decimals, feeBps: BigInt(feeBps), reserveToken, reserveUsdg };
      pools.set(pool, m);
    }
    return m;
  };

  const calls: Call[] = [];

  // Limit orders: fill as much of each crossed order as the pool pays at the limit price.
  const [hookPaused, orderIds] = await Promise.all([
    read.readContract({ address: d.limitOrderHook, abi: limitOrderHookAbi, functionName: "paused" }),
    read.readContract({ address: d.limitOrderHook, abi: limitOrderHookAbi, functionName: "openOrderIds" }),
  ]);
  if (!hookPaused) {
    for (const id of [...orderIds].sort(cmp)) {
      const o = await read.readContract({ address: d.limitOrderHook, abi: limitOrderHookAbi, functionName: "orders", args: [id] });
      if (!o.active || o.remaining === 0n) continue;
      const m = await poolOf(o.pool);
      const spot = spotPriceX18(m.reserveToken, m.decimals, m.reserveUsdg);
      if (o.sellToken ? spot < o.priceX18 : spot > o.priceX18) continue;
      const minOut = (a: bigint) => (o.sellToken ? tokenToUsdg(a, m.decimals, o.priceX18) : usdgToToken(a, m.decimals, o.priceX18));
      const fits = (a: bigint) => {
        const q = quote(m, o.sellToken, a);
        return q > 0n && q >= minOut(a);
      };
      let amount = o.remaining;
      if (!fits(amount)) {
        // The largest part the pool fills at the limit (quote - minOut is concave in the amount).
        let lo = 0n;
        let hi = o.remaining;
        while (hi - lo > 1n) {
          const mid = (lo + hi) / 2n;
          if (fits(mid)) lo = mid;
          else hi = mid;
        }
        amount = lo;
        const worth = o.sellToken ? tokenToUsdg(amount, m.decimals, o.priceX18) : amount;
        if (amount === 0n || worth < MIN_PARTIAL_FILL_USDG) continue;
      }
      swap(m, o.sellToken, amount);
      calls.push({ target: d.limitOrderHook, data: encodeFunctionData({ abi: limitOrderHookAbi, functionName: "fill", args: [id, amount] }) });
    }
  }

  // Grids: one trade per crossed grid.
  const [gridPaused, gridFee, gridIds] = await Promise.all([
    read.readContract({ address: d.gridStrategy, abi: gridStrategyAbi, functionName: "paused" }),
    read.readContract({ address: d.gridStrategy, abi: gridStrategyAbi, functionName: "feeBps" }),
    read.readContract({ address: d.gridStrategy, abi: gridStrategyAbi, functionName: "openGridIds" }),
  ]);
  if (!gridPaused) {
    for (const id of [...gridIds].sort(cmp)) {
      const g = await read.readContract({ address: d.gridStrategy, abi: gridStrategyAbi, functionName: "grids", args: [id] });
      if (!g.active) continue;
      const m = await poolOf(g.pool);
      const traded = g.holdsToken
        ? trySell(m, g.tokens, g.sellPriceX18)
        : tryBuy(m, g.usdg < g.amountUsdg ? g.usdg : g.amountUsdg, BigInt(gridFee), g.buyPriceX18);
      if (traded) calls.push({ target: d.gridStrategy, data: encodeFunctionData({ abi: gridStrategyAbi, functionName: "poke", args: [id] }) });
    }
  }

  // Ladders: poke a ladder when at least one of its legs trades (the contract trades every crossed leg).
  const [ladderPaused, ladderFee, ladderIds] = await Promise.all([
    read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "paused" }),
    read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "feeBps" }),
    read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "openLadderIds" }),
  ]);
  if (!ladderPaused) {
    for (const id of [...ladderIds].sort(cmp)) {
      const [l, legs] = await Promise.all([
        read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "ladders", args: [id] }),
        read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "legsOf", args: [id] }),
      ]);
      if (!l.active) continue;
      const open = await read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "marketOpen", args: [l.token] });
      if (!open) continue;
      const m = await poolOf(l.pool);
      let traded = false;
      for (const s of legs) {
        if (s.finished) continue;
        // Same amounts as the contract: on its start side a leg trades at most its stake.
        const ok = s.holdsToken
          ? trySell(m, l.sellFirst && s.tokens > s.amount ? s.amount : s.tokens, s.sellPriceX18)
          : tryBuy(m, !l.sellFirst && s.usdg > s.amount ? s.amount : s.usdg, BigInt(ladderFee), s.buyPriceX18);
        traded ||= ok;
      }
      if (traded) calls.push({ target: d.ladderStrategy, data: encodeFunctionData({ abi: ladderStrategyAbi, functionName: "poke", args: [id] }) });
    }
  }
  return calls;
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** Pool.quote: output of selling `amountIn` of the token (`tokenIn`) or of USDG. */
function quote(m: PoolModel, tokenIn: boolean, amountIn: bigint): bigint {
  const [rIn, rOut] = tokenIn ? [m.reserveToken, m.reserveUsdg] : [m.reserveUsdg, m.reserveToken];
  const inAfterFee = amountIn * (10_000n - m.feeBps);
  return (inAfterFee * rOut) / (rIn * 10_000n + inAfterFee);
}

function swap(m: PoolModel, tokenIn: boolean, amountIn: bigint): bigint {
  const out = quote(m, tokenIn, amountIn);
  if (tokenIn) {
    m.reserveToken += amountIn;
    m.reserveUsdg -= out;
  } else {
    m.reserveUsdg += amountIn;
    m.reserveToken -= out;
  }
  return out;
}

/** A grid/ladder sell of `amountIn` tokens at no worse than `sellPriceX18`; swaps the model if it goes through. */
function trySell(m: PoolModel, amountIn: bigint, sellPriceX18: bigint): boolean {
  if (amountIn === 0n) return false;
  const q = quote(m, true, amountIn);
  if (q === 0n || q < tokenToUsdg(amountIn, m.decimals, sellPriceX18)) return false;
  swap(m, true, amountIn);
  return true;
}

/** A grid/ladder buy spending `spend` USDG (strategy fee `feeBps` taken first) at no worse than `buyPriceX18`. */
function tryBuy(m: PoolModel, spend: bigint, feeBps: bigint, buyPriceX18: bigint): boolean {
  if (buyPriceX18 === 0n) return false;
  const swapIn = spend - (spend * feeBps) / 10_000n;
  if (swapIn === 0n) return false;
  const q = quote(m, false, swapIn);
  if (q === 0n || q < usdgToToken(swapIn, m.decimals, buyPriceX18)) return false;
  swap(m, false, swapIn);
  return true;
}
