// The basket plan's look-back: a weighted pool simulated over past hourly prices, kept at its weights by
// the service's keeper (an arbitrage back to the weights after every price step), earning the swap fee
// on the volume each rebalance trades. Per 1,000 USD at the start. Pure.

export type LookbackInput = {
  /** Weights as fractions (sum 1), one per token. */
  weights: readonly number[];
  /** Unix seconds of each step, ascending. */
  times: readonly number[];
  /** prices[t][i]: USD per whole token i at step t (> 0). */
  prices: readonly (readonly number[])[];
  /** The swap fee as a fraction (0.003 or 0.01). */
  fee: number;
  /** Length of a window in seconds (e.g. a day or a week). */
  windowSeconds: number;
};

export type LookbackWindow = { from: number; to: number; changePct: number; feesPer1kUsd: number; trades: number };

export type LookbackResult = {
  /** End value over start value, in percent (fees included). */
  growthPct: number;
  /** The largest fall from a running high, in percent (a positive number). */
  worstDropPct: number;
  /** Swap fees earned per 1,000 USD started. */
  feesPer1kUsd: number;
  /** Rebalances that traded (volume over 0.01% of the pool). */
  trades: number;
  /** The pool's value at the end, for 1,000 USD at the start. */
  endValueUsd: number;
  windows: LookbackWindow[];
};

const START_USD = 1000;
const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

export function simulateLookback({ weights, times, prices, fee, windowSeconds }: LookbackInput): LookbackResult {
  if (times.length < 2 || prices.length !== times.length) throw new Error("the look-back needs at least two price steps");
  const n = weights.length;
  let balances = weights.map((w, i) => (START_USD * w) / prices[0]![i]!);
  let value = START_USD;
  let peak = value;
  let worstDrop = 0;
  let fees = 0;
  let trades = 0;
  const windows: LookbackWindow[] = [];
  let window = { from: times[0]!, startValue: value, fees: 0, trades: 0 };

  for (let t = 1; t < times.length; t++) {
    const p = prices[t]!;
    // Arbitrage back to the weights keeps the invariant Π b_i^w_i, so the value after it is
    // Π (b_i p_i / w_i)^w_i, and the balances are that value split by weight at the new prices.
    let rebalanced = 1;
    for (let i = 0; i < n; i++) rebalanced *= ((balances[i]! * p[i]!) / weights[i]!) ** weights[i]!;
    const target = weights.map((w, i) => (rebalanced * w) / p[i]!);
    const volume = target.reduce((s, b, i) => s + Math.max(0, b - balances[i]!) * p[i]!, 0);
    const earned = volume * fee;
    // The fee stays in the pool, spread by weight.
    balances = target.map((b) => b * (1 + earned / rebalanced));
    value = rebalanced + earned;
    fees += earned;
    window.fees += earned;
    if (volume > value * 1e-4) {
      trades += 1;
      window.trades += 1;
    }
    peak = Math.max(peak, value);
    worstDrop = Math.max(worstDrop, (peak - value) / peak);
    const last = t === times.length - 1;
    if (times[t]! - window.from >= windowSeconds || last) {
      windows.push({
        from: window.from,
        to: times[t]!,
        changePct: round(((value - window.startValue) / window.startValue) * 100),
        feesPer1kUsd: round((window.fees / window.startValue) * START_USD),
        trades: window.trades,
      });
      window = { from: times[t]!, startValue: value, fees: 0, trades: 0 };
    }
  }
  return {
    growthPct: round(((value - START_USD) / START_USD) * 100),
    worstDropPct: round(worstDrop * 100),
    feesPer1kUsd: round(fees),
    trades,
    endValueUsd: round(value, 2),
    windows,
  };
}
