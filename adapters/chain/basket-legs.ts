// Aggregator legs for the basket zap and maker, quoted by the aggregator on chain.
import { encodeFunctionData, type Address, type PublicClient } from "viem";
import { devAggregatorAbi } from "../../abis/index.js";
import type { Leg } from "../../domain/products/baskets/legs.js";
import { sameAddress } from "../../domain/address.js";

/** What the aggregator pays now for `amountIn` of `tokenIn` in `tokenOut`. */
export type QuoteFn = (tokenIn: Address, tokenOut: Address, amountIn: bigint) => Promise<bigint>;

/** A QuoteFn over DevAggregator.quote. */
export function aggregatorQuote(client: Pick<PublicClient, "readContract">, aggregator: Address): QuoteFn {
  return (tokenIn, tokenOut, amountIn) =>
    client.readContract({ address: aggregator, abi: devAggregatorAbi, functionName: "quote", args: [tokenIn, tokenOut, amountIn] });
}

/** One leg selling `amountIn` of `tokenIn` for `tokenOut` to `recipient` (the zap or maker); a pass-through when the tokens are the same. */
export async function buildLeg(
  quote: QuoteFn,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  recipient: Address,
  slippageBps: number,
): Promise<{ leg: Leg; quote: bigint; minOut: bigint }> {
  if (sameAddress(tokenIn, tokenOut)) return { leg: { tokenIn, tokenOut, amountIn, data: "0x" }, quote: amountIn, minOut: amountIn };
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
  const built = await Promise.all(opts.tokens.map((t, i) => buildLeg(opts.quote, t, opts.receiveToken, opts.amounts[i]!, opts.recipient, opts.slippageBps)));
  const quotes = built.map((b) => b.quote);
  return { legs: built.map((b) => b.leg), quotes, expectedOut: quotes.reduce((a, b) => a + b, 0n) };
}
