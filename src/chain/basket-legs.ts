// Aggregator legs for the basket zap and maker, and the pool's proportional join/exit arithmetic
// (mirrors devnet/contracts/baskets/BasketPool.sol, same integer rounding).
import { encodeFunctionData, type Address, type Hex, type PublicClient } from "viem";
import { devAggregatorAbi } from "../../abis/index.js";

/** RouteCall.sol's `Leg`: `data` is aggregator calldata that pays `tokenOut` back to the caller. */
export type Leg = { tokenIn: Address; tokenOut: Address; amountIn: bigint; data: Hex };

/** What the aggregator pays now for `amountIn` of `tokenIn` in `tokenOut`. */
export type QuoteFn = (tokenIn: Address, tokenOut: Address, amountIn: bigint) => Promise<bigint>;

/** A QuoteFn over DevAggregator.quote. */
export function aggregatorQuote(client: Pick<PublicClient, "readContract">, aggregator: Address): QuoteFn {
  return (tokenIn, tokenOut, amountIn) =>
    client.readContract({ address: aggregator, abi: devAggregatorAbi, functionName: "quote", args: [tokenIn, tokenOut, amountIn] });
}

const same = (a: Address, b: Address) => a.toLowerCase() === b.toLowerCase();

/** One leg selling `amountIn` of `tokenIn` for `tokenOut` to `recipient` (the zap or maker); a pass-through when the tokens are the same. */
export async function buildLeg(
  quote: QuoteFn,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  recipient: Address,
  slippageBps: number,
): Promise<{ leg: Leg; quote: bigint; minOut: bigint }> {
  if (same(tokenIn, tokenOut)) return { leg: { tokenIn, tokenOut, amountIn, data: "0x" }, quote: amountIn, minOut: amountIn };
  const q = await quote(tokenIn, tokenOut, amountIn);
  const minOut = (q * BigInt(10_000 - slippageBps)) / 10_000n;
  const data = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [tokenIn, tokenOut, amountIn, minOut, recipient] });
  return { leg: { tokenIn, tokenOut, amountIn, data }, quote: q, minOut };
}

/**
 * Buy legs: splits `amount` of `payToken` over the basket's `tokens` (pool order) by `weights`
 * (normalizedWeights, or any shares; the last leg takes the rounding), one leg per token.
 * `quotes[i]` is what leg i is expected to bring in.
 */
export async function buildLegs(opts: {
  quote: QuoteFn;
  payToken: Address;
  amount: bigint;
  tokens: readonly Address[];
  weights: readonly bigint[];
  /** The contract that runs the legs: the zap or the maker. */
  recipient: Address;
  slippageBps: number;
}): Promise<{ legs: Leg[]; quotes: bigint[]; amounts: bigint[] }> {
  const { tokens, weights, amount } = opts;
  if (tokens.length !== weights.length) throw new Error("tokens and weights differ in length");
  const total = weights.reduce((a, b) => a + b, 0n);
  const amounts = weights.map((w) => (amount * w) / total);
  amounts[amounts.length - 1]! += amount - amounts.reduce((a, b) => a + b, 0n);
  const built = await Promise.all(tokens.map((t, i) => buildLeg(opts.quote, opts.payToken, t, amounts[i]!, opts.recipient, opts.slippageBps)));
  return { legs: built.map((b) => b.leg), quotes: built.map((b) => b.quote), amounts };
}

/** Sell legs: each exited amount (pool order) of `tokens` sold for `receiveToken`. */
export async function buildSellLegs(opts: {
  quote: QuoteFn;
  receiveToken: Address;
  tokens: readonly Address[];
  amounts: readonly bigint[];
  recipient: Address;
  slippageBps: number;
}): Promise<{ legs: Leg[]; quotes: bigint[]; expectedOut: bigint }> {
  const built = await Promise.all(
    opts.tokens.map((t, i) => buildLeg(opts.quote, t, opts.receiveToken, opts.amounts[i]!, opts.recipient, opts.slippageBps)),
  );
  const quotes = built.map((b) => b.quote);
  return { legs: built.map((b) => b.leg), quotes, expectedOut: quotes.reduce((a, b) => a + b, 0n) };
}

/** Basket tokens minted by BasketPool.join for `maxAmountsIn`, and what it takes. */
export function proportionalJoin(balances: readonly bigint[], supply: bigint, maxAmountsIn: readonly bigint[]): { bptOut: bigint; amountsIn: bigint[] } {
  if (supply === 0n) return { bptOut: 100n * 10n ** 18n, amountsIn: [...maxAmountsIn] };
  let bptOut = -1n;
  for (const [i, b] of balances.entries()) {
    const share = (maxAmountsIn[i]! * supply) / b;
    if (bptOut < 0n || share < bptOut) bptOut = share;
  }
  const amountsIn = balances.map((b) => (bptOut * b + supply - 1n) / supply);
  return { bptOut, amountsIn };
}

/** What BasketPool.exit pays for `bptIn`, per token. */
export function proportionalExit(balances: readonly bigint[], supply: bigint, bptIn: bigint): bigint[] {
  return balances.map((b) => (b * bptIn) / supply);
}

/** Less `slippageBps`, rounded down: a minimum from an expected amount. */
export function lessSlippage(amount: bigint, slippageBps: number): bigint {
  return (amount * BigInt(10_000 - slippageBps)) / 10_000n;
}
