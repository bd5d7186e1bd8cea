// Strategies keeper: fills crossed limit orders and pokes crossed grids and ladders. It reads the keeper
// views (openOrderIds, openGridIds, openLadderIds) and returns only calls that will succeed: it prices
// each pool as MarketRegistry.priceX18 does (PriceMath.spot over the reserves) and replays the pool's
// quote formula locally, updating the reserves after every planned trade, so that calls later in the
// same MarketMaker batch see the prices the earlier ones leave behind.
//
// Seeding the history, the keeper runs after every price move (thousands of times) while its orders,
// grids and ladders change only now and then: `trackStrategyKeeper` keeps what it read, and the pools'
// reserves, from the receipts of the context's transactions, and reads again only after a transaction
// that logged from one of the three contracts (every change of their state does: orders placed, filled,
// cancelled; grids and ladders opened, traded, closed; pauses; markets opened or closed).
import { encodeFunctionData, type Address, type Hex, type TransactionReceipt } from "viem";
import { gridStrategyAbi, ladderStrategyAbi, limitOrderHookAbi, poolAbi } from "../../abis/index.js";
import { spotPriceX18, tokenToUsdg, usdgToToken } from "../../domain/price.js";
import type { DeployContext } from "../deploy/context.js";
import { poolReservesIn, type Reserves } from "../market.js";

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
type PoolConstants = { decimals: number; feeBps: bigint };

type Order = Awaited<ReturnType<typeof readOrder>>;
type Grid = Awaited<ReturnType<typeof readGrid>>;
type Ladder = Awaited<ReturnType<typeof readLadder>>;

/** What the keeper reads of the three contracts (everything but the pools' reserves). */
type Snapshot = {
  orderIds: bigint[];
  orders: Order[];
  gridFee: bigint;
  gridIds: bigint[];
  grids: Grid[];
  ladderFee: bigint;
  ladderIds: bigint[];
  ladders: Ladder[];
  /** Per ladder: whether its market is open (read for active ladders only). */
  open: boolean[];
  /** The pools of every live order, grid and ladder. */
  pools: Address[];
};

export async function strategyKeeperCalls(ctx: DeployContext, d: StrategyKeeperInput): Promise<Call[]> {
  const tracker = trackers.get(ctx.chain.provider);
  if (tracker) return tracker.calls(ctx, d);
  const snapshot = await readSnapshot(ctx, d);
  const models = await Promise.all(snapshot.pools.map(async (pool) => [pool, await poolModel(ctx, pool)] as const));
  return planCalls(d, snapshot, new Map(models));
}

// Reads go out in rounds of concurrent calls (each one Multicall3 eth_call through the deploy context's
// client): the keeper views, then every open order, grid and ladder, then the markets those need.
async function readSnapshot(ctx: DeployContext, d: StrategyKeeperInput): Promise<Snapshot> {
  const read = ctx.chain.publicClient;
  const [hookPaused, orderIds, gridPaused, gridFee, gridIds, ladderPaused, ladderFee, ladderIds] = await Promise.all([
    read.readContract({ address: d.limitOrderHook, abi: limitOrderHookAbi, functionName: "paused" }),
    read.readContract({ address: d.limitOrderHook, abi: limitOrderHookAbi, functionName: "openOrderIds" }),
    read.readContract({ address: d.gridStrategy, abi: gridStrategyAbi, functionName: "paused" }),
    read.readContract({ address: d.gridStrategy, abi: gridStrategyAbi, functionName: "feeBps" }),
    read.readContract({ address: d.gridStrategy, abi: gridStrategyAbi, functionName: "openGridIds" }),
    read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "paused" }),
    read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "feeBps" }),
    read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "openLadderIds" }),
  ]);
  const snapshot: Snapshot = {
    orderIds: hookPaused ? [] : [...orderIds].sort(cmp),
    orders: [],
    gridFee: BigInt(gridFee),
    gridIds: gridPaused ? [] : [...gridIds].sort(cmp),
    grids: [],
    ladderFee: BigInt(ladderFee),
    ladderIds: ladderPaused ? [] : [...ladderIds].sort(cmp),
    ladders: [],
    open: [],
    pools: [],
  };
  if (snapshot.orderIds.length + snapshot.gridIds.length + snapshot.ladderIds.length === 0) return snapshot;
  [snapshot.orders, snapshot.grids, snapshot.ladders] = await Promise.all([
    Promise.all(snapshot.orderIds.map((id) => readOrder(ctx, d, id))),
    Promise.all(snapshot.gridIds.map((id) => readGrid(ctx, d, id))),
    Promise.all(snapshot.ladderIds.map((id) => readLadder(ctx, d, id))),
  ]);
  snapshot.open = await Promise.all(
    snapshot.ladders.map(([l]) =>
      l.active ? read.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "marketOpen", args: [l.token] }) : false,
    ),
  );
  const pools = new Set<Address>();
  for (const o of snapshot.orders) if (o.active && o.remaining !== 0n) pools.add(o.pool);
  for (const g of snapshot.grids) if (g.active) pools.add(g.pool);
  snapshot.ladders.forEach(([l], i) => l.active && snapshot.open[i] && pools.add(l.pool));
  snapshot.pools = [...pools];
  return snapshot;
}

const readOrder = (ctx: DeployContext, d: StrategyKeeperInput, id: bigint) =>
  ctx.chain.publicClient.readContract({ address: d.limitOrderHook, abi: limitOrderHookAbi, functionName: "orders", args: [id] });
const readGrid = (ctx: DeployContext, d: StrategyKeeperInput, id: bigint) =>
  ctx.chain.publicClient.readContract({ address: d.gridStrategy, abi: gridStrategyAbi, functionName: "grids", args: [id] });
const readLadder = (ctx: DeployContext, d: StrategyKeeperInput, id: bigint) =>
  Promise.all([
    ctx.chain.publicClient.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "ladders", args: [id] }),
    ctx.chain.publicClient.readContract({ address: d.ladderStrategy, abi: ladderStrategyAbi, functionName: "legsOf", args: [id] }),
  ]);

/** The calls due, from a snapshot and the pools' models (advanced by the planned trades). */
function planCalls(d: StrategyKeeperInput, snapshot: Snapshot, pools: Map<Address, PoolModel>): Call[] {
  const poolOf = (pool: Address) => pools.get(pool)!;
  const calls: Call[] = [];

  // Limit orders: fill as much of each crossed order as the pool pays at the limit price.
  snapshot.orderIds.forEach((id, i) => {
    const o = snapshot.orders[i]!;
    if (!o.active || o.remaining === 0n) return;
    const m = poolOf(o.pool);
    const spot = spotPriceX18(m.reserveToken, m.decimals, m.reserveUsdg);
    if (o.sellToken ? spot < o.priceX18 : spot > o.priceX18) return;
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
      if (amount === 0n || worth < MIN_PARTIAL_FILL_USDG) return;
    }
    swap(m, o.sellToken, amount);
    calls.push({ target: d.limitOrderHook, data: encodeFunctionData({ abi: limitOrderHookAbi, functionName: "fill", args: [id, amount] }) });
  });

  // Grids: one trade per crossed grid.
  snapshot.gridIds.forEach((id, i) => {
    const g = snapshot.grids[i]!;
    if (!g.active) return;
    const m = poolOf(g.pool);
    const traded = g.holdsToken
      ? trySell(m, g.tokens, g.sellPriceX18)
      : tryBuy(m, g.usdg < g.amountUsdg ? g.usdg : g.amountUsdg, snapshot.gridFee, g.buyPriceX18);
    if (traded) calls.push({ target: d.gridStrategy, data: encodeFunctionData({ abi: gridStrategyAbi, functionName: "poke", args: [id] }) });
  });

  // Ladders: poke a ladder when at least one of its legs trades (the contract trades every crossed leg).
  snapshot.ladderIds.forEach((id, i) => {
    const [l, legs] = snapshot.ladders[i]!;
    if (!l.active || !snapshot.open[i]) return;
    const m = poolOf(l.pool);
    let traded = false;
    for (const s of legs) {
      if (s.finished) continue;
      // Same amounts as the contract: on its start side a leg trades at most its stake.
      const ok = s.holdsToken
        ? trySell(m, l.sellFirst && s.tokens > s.amount ? s.amount : s.tokens, s.sellPriceX18)
        : tryBuy(m, !l.sellFirst && s.usdg > s.amount ? s.amount : s.usdg, snapshot.ladderFee, s.buyPriceX18);
      traded ||= ok;
    }
    if (traded) calls.push({ target: d.ladderStrategy, data: encodeFunctionData({ abi: ladderStrategyAbi, functionName: "poke", args: [id] }) });
  });
  return calls;
}

/** A pool's decimals and fee never change: read once per pool address (per chain). */
const poolConstants = new WeakMap<object, Map<Address, Promise<PoolConstants>>>();

function constantsOf(ctx: DeployContext, pool: Address): Promise<PoolConstants> {
  const read = ctx.chain.publicClient;
  let perChain = poolConstants.get(ctx.chain.provider);
  if (!perChain) poolConstants.set(ctx.chain.provider, (perChain = new Map()));
  let constants = perChain.get(pool);
  if (!constants) {
    constants = Promise.all([
      read.readContract({ address: pool, abi: poolAbi, functionName: "tokenDecimals" }),
      read.readContract({ address: pool, abi: poolAbi, functionName: "feeBps" }),
    ]).then(([decimals, feeBps]) => ({ decimals, feeBps: BigInt(feeBps) }));
    perChain.set(pool, constants);
    constants.catch(() => perChain.delete(pool));
  }
  return constants;
}

async function poolModel(ctx: DeployContext, pool: Address): Promise<PoolModel> {
  const [[reserveToken, reserveUsdg], { decimals, feeBps }] = await Promise.all([
    ctx.chain.publicClient.readContract({ address: pool, abi: poolAbi, functionName: "getReserves" }),
    constantsOf(ctx, pool),
  ]);
  return { decimals, feeBps, reserveToken, reserveUsdg };
}

/** Keeps the keeper's reads between transactions that could change them (see the top of this file). */
class Tracker {
  private snapshot: Snapshot | undefined;
  private input: StrategyKeeperInput | undefined;
  private readonly reserves = new Map<string, Reserves>();
  readonly stop: () => void;

  constructor(
    ctx: DeployContext,
    private readonly verify: boolean,
  ) {
    this.stop = ctx.onReceipt((receipt) => this.observe(receipt));
  }

  private observe(receipt: TransactionReceipt) {
    for (const [pool, r] of poolReservesIn(receipt)) this.reserves.set(pool, r);
    const own = this.input && [this.input.limitOrderHook, this.input.gridStrategy, this.input.ladderStrategy].map((a) => a.toLowerCase());
    if (own && receipt.logs.some((l) => own.includes(l.address.toLowerCase()))) this.snapshot = undefined;
  }

  async calls(ctx: DeployContext, d: StrategyKeeperInput): Promise<Call[]> {
    if (!this.input || !sameInput(this.input, d)) this.snapshot = undefined;
    this.input = d;
    this.snapshot ??= await readSnapshot(ctx, d);
    const snapshot = this.snapshot;
    // A pool not seen in a receipt since tracking began has not traded since: read it once.
    const missing = snapshot.pools.filter((p) => !this.reserves.has(p.toLowerCase()));
    const read = await Promise.all(missing.map((pool) => ctx.chain.publicClient.readContract({ address: pool, abi: poolAbi, functionName: "getReserves" })));
    missing.forEach((pool, i) => this.reserves.has(pool.toLowerCase()) || this.reserves.set(pool.toLowerCase(), { token: read[i]![0], usdg: read[i]![1] }));
    const models = await Promise.all(
      snapshot.pools.map(async (pool) => {
        const { decimals, feeBps } = await constantsOf(ctx, pool);
        const r = this.reserves.get(pool.toLowerCase())!;
        return [pool, { decimals, feeBps, reserveToken: r.token, reserveUsdg: r.usdg }] as const;
      }),
    );
    const calls = planCalls(d, snapshot, new Map(models));
    if (this.verify) {
      const fresh = await readSnapshot(ctx, d);
      const freshModels = await Promise.all(fresh.pools.map(async (pool) => [pool, await poolModel(ctx, pool)] as const));
      const expected = planCalls(d, fresh, new Map(freshModels));
      if (JSON.stringify(expected) !== JSON.stringify(calls))
        throw new Error(`strategy keeper: tracked calls ${JSON.stringify(calls)} differ from read ${JSON.stringify(expected)}`);
    }
    return calls;
  }
}

const trackers = new WeakMap<object, Tracker>();
const sameInput = (a: StrategyKeeperInput, b: StrategyKeeperInput) =>
  a.limitOrderHook === b.limitOrderHook && a.gridStrategy === b.gridStrategy && a.ladderStrategy === b.ladderStrategy;

/**
 * While on, the strategy keeper of this context's chain answers from what it read before and from the
 * receipts of the context's transactions. Only for when every transaction goes through the context
 * (seeding the history); DEVNET_VERIFY_KEEPER=1 checks every answer against a fresh read.
 */
export function trackStrategyKeeper(ctx: DeployContext, on: boolean): void {
  trackers.get(ctx.chain.provider)?.stop();
  trackers.delete(ctx.chain.provider);
  if (on) trackers.set(ctx.chain.provider, new Tracker(ctx, process.env.DEVNET_VERIFY_KEEPER === "1"));
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
