// The market simulator: keeps a simulated price per token and trades the pools towards it.
import { decodeAbiParameters, toEventSelector, type Address, type Hex, type TransactionReceipt } from "viem";
import { marketMakerAbi, poolAbi } from "../abis/index.js";
import { priceToX18 } from "../domain/price.js";
import type { DeployedToken } from "../adapters/chain/deployments.js";
import type { DeployContext } from "./deploy/context.js";
import { nextPrice, seededRandom } from "./seed/price-paths.js";
import { devnetTokens, type DevnetToken } from "./tokens.js";

export type Reserves = { token: bigint; usdg: bigint };

// Pool.Swap and Pool.LiquidityAdded carry the reserves after the change as their last two data words.
const SWAP = toEventSelector("Swap(address,address,address,uint256,uint256,uint256,uint256)");
const LIQUIDITY_ADDED = toEventSelector("LiquidityAdded(address,uint256,uint256,uint256,uint256)");
const FOUR_WORDS = [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "uint256" }] as const;

/** The reserves a receipt leaves in each pool (lower-case address) that logged a swap or a liquidity change. */
export function poolReservesIn(receipt: Pick<TransactionReceipt, "logs">): Map<string, Reserves> {
  const out = new Map<string, Reserves>();
  for (const log of receipt.logs) {
    const topic = log.topics[0];
    if (topic !== SWAP && topic !== LIQUIDITY_ADDED) continue;
    const [, , token, usdg] = decodeAbiParameters(FOUR_WORDS, log.data);
    out.set(log.address.toLowerCase(), { token, usdg });
  }
  return out;
}

export class MarketSimulator {
  private readonly random: () => number;
  private readonly prices = new Map<string, number>();
  private readonly specs: { spec: DevnetToken; pool: Address; token: Address }[];
  private readonly usdg: Address;
  private feeBps: bigint | undefined;
  /** Whether the market maker has given every pool its allowances (the first step does). */
  private approved = false;
  /** Reserves by pool (lower case) kept from receipts while tracking; undefined: read them each step. */
  private tracked: Map<string, Reserves> | undefined;
  private stopTracking: (() => void) | undefined;

  constructor(
    private readonly ctx: DeployContext,
    private readonly marketMaker: Address,
    tokens: DeployedToken[],
    seed = 4663,
  ) {
    this.random = seededRandom(seed);
    this.specs = devnetTokens.map((spec) => {
      const t = tokens.find((x) => x.symbol === spec.symbol)!;
      return { spec, pool: t.pool!, token: t.address };
    });
    this.usdg = tokens.find((t) => t.symbol === "USDG")!.address;
    for (const { spec } of this.specs) this.prices.set(spec.symbol, spec.startPrice);
  }

  price(symbol: string): number {
    return this.prices.get(symbol)!;
  }

  /**
   * While on, the pools' reserves are kept from the Swap and LiquidityAdded events in the receipts of
   * this context's transactions instead of read before every step. Only for when every transaction
   * goes through the context (seeding the history); live, anyone may trade, and reserves are read.
   */
  async trackReserves(on: boolean): Promise<void> {
    this.stopTracking?.();
    this.stopTracking = undefined;
    this.tracked = undefined;
    if (!on) return;
    const reserves = await this.readReserves();
    this.tracked = new Map(this.specs.map((s, i) => [s.pool.toLowerCase(), reserves[i]!]));
    this.stopTracking = this.ctx.onReceipt((receipt) => this.observe(receipt));
  }

  /**
   * Advances every simulated price by `hours` and trades all pools there in one transaction: each pool
   * sells what MarketMaker.moveTo would (same arithmetic, here from the reserves), through swapMany.
   */
  async step(hours: number): Promise<Hex> {
    const targets = this.specs.map(({ spec }) => {
      const p = nextPrice(this.price(spec.symbol), { startPrice: spec.startPrice, hourlyVolatility: spec.volatility }, hours, this.random);
      this.prices.set(spec.symbol, p);
      return priceToX18(p);
    });
    const reserves = this.tracked ? this.specs.map((s) => this.tracked!.get(s.pool.toLowerCase())!) : await this.readReserves();
    const fee =
      this.feeBps ??
      (this.feeBps = BigInt(await this.ctx.chain.publicClient.readContract({ address: this.specs[0]!.pool, abi: poolAbi, functionName: "feeBps" })));
    const pools: Address[] = [];
    const tokensIn: Address[] = [];
    const amounts: bigint[] = [];
    // Every pool, in a fixed order; a pool with nothing to trade gets 0 (swapMany skips it).
    this.specs.forEach((s, i) => {
      const move = moveAmount(reserves[i]!, targets[i]!, s.spec.decimals, fee);
      pools.push(s.pool);
      tokensIn.push(move?.sellToken === false ? this.usdg : s.token);
      amounts.push(move?.amountIn ?? 0n);
    });
    const hash = await this.ctx.send(this.marketMaker, marketMakerAbi, "swapMany", [pools, tokensIn, amounts, !this.approved], this.ctx.keeper);
    this.approved = true;
    return hash;
  }

  private async readReserves(): Promise<Reserves[]> {
    const read = this.ctx.chain.publicClient;
    const all = await Promise.all(this.specs.map((s) => read.readContract({ address: s.pool, abi: poolAbi, functionName: "getReserves" })));
    return all.map(([token, usdg]) => ({ token, usdg }));
  }

  private observe(receipt: TransactionReceipt) {
    for (const [pool, r] of poolReservesIn(receipt)) if (this.tracked?.has(pool)) this.tracked.set(pool, r);
  }
}

/**
 * What MarketMaker.moveTo sells to bring a pool at `r` to `targetX18` (USDG per whole token, 18 decimals):
 * on the constant product, the token reserve at the target is sqrt(k * 1e12 * 10^decimals / target);
 * the input grossed up by the pool fee. Undefined when no trade is due or it would buy nothing.
 */
export function moveAmount(r: Reserves, targetX18: bigint, decimals: number, feeBps: bigint): { sellToken: boolean; amountIn: bigint } | undefined {
  if (r.token === 0n || targetX18 === 0n) return undefined;
  const scale = 10n ** BigInt(12 + decimals);
  const wantT = sqrt((r.token * r.usdg * scale) / targetX18);
  let move: { sellToken: boolean; amountIn: bigint };
  if (wantT > r.token) {
    move = { sellToken: true, amountIn: ((wantT - r.token) * 10_000n) / (10_000n - feeBps) };
  } else if (wantT < r.token) {
    const wantU = (r.token * r.usdg) / wantT;
    move = { sellToken: false, amountIn: ((wantU - r.usdg) * 10_000n) / (10_000n - feeBps) };
  } else {
    return undefined;
  }
  if (move.amountIn === 0n) return undefined;
  // Pool.quote: a move too small to buy one base unit is skipped (the pool would refuse it).
  const [rIn, rOut] = move.sellToken ? [r.token, r.usdg] : [r.usdg, r.token];
  const inAfterFee = move.amountIn * (10_000n - feeBps);
  if ((inAfterFee * rOut) / (rIn * 10_000n + inAfterFee) === 0n) return undefined;
  return move;
}

/** floor(sqrt(n)), as OpenZeppelin's Math.sqrt. */
export function sqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}
