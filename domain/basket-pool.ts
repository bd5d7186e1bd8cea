// The basket pool's proportional join and exit arithmetic (mirrors devnet/contracts/baskets/BasketPool.sol,
// same integer rounding), and the slippage floor every bundle's minimum is made with.
import { ONE_X18 } from "./price.js";

/** Basket tokens minted by BasketPool.join for `maxAmountsIn`, and what it takes. */
export function proportionalJoin(balances: readonly bigint[], supply: bigint, maxAmountsIn: readonly bigint[]): { bptOut: bigint; amountsIn: bigint[] } {
  if (supply === 0n) return { bptOut: 100n * ONE_X18, amountsIn: [...maxAmountsIn] };
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
