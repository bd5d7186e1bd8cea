// The fill rules of every backtest, planner, scan and strategy-finder run, written once: this text is
// in the OpenAPI descriptions of those routes and in skill.md. The simulations in this folder follow it.

/** Float rounding allowance when a price is compared with a line (relative). */
export const LINE_EPSILON = 1e-9;

export const FILL_RULES = [
  "Fill rules of backtests, planners, scans and the strategy finder (estimates over past candles, not quotes; past results do not predict results):",
  "1. Candles are replayed oldest first. Prices are USDG per whole token; a missing candle repeats the previous close.",
  "2. A buy line fills when a candle's low is at or below the line; a sell line fills when a candle's high is at or above it. A fill is at the line's price exactly, never better.",
  "3. The order of prices inside a candle is unknown, so one strategy (or one ladder level) fills at most one line per candle: a buy and its sell need two candles.",
  "4. Grids and ladder-strategy parts (the dip ladder) pay the strategy fee (the live feeBps of the contract) on the USDG side of each trade: taken from the USDG put into a buy, and from the USDG a sell receives. Limit orders (the ladder backtest) pay the hook's commission (its live feeBps) on each fill's output, in the output token.",
  "5. A grid starts holding amountUsd in USDG and waits to buy. Each buy spends at most amountUsd (USDG above it is realised profit, kept aside). With repeat it goes on buy -> sell -> buy; without, it stops after its first sell.",
  "6. A round trip is a buy followed by its sell; its profit is the USDG the sell received after fees minus the USDG the buy spent with fees.",
  "7. A ladder-backtest level is a one-shot limit order: it fills once, in full, at its price, on the first candle that reaches it, and never again.",
  "8. End value is the USDG held plus the token held marked at the last candle's close; profit is end value minus the starting amount. Holding compares with the token bought at the first candle's open and marked at the last close, no fees.",
].join("\n");
