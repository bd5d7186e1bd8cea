// Ladder backtest: one-shot limit orders, one per level, replayed over candles by the fill rules
// (fill-rules.ts). A buy level spends its amountUsd of USDG at its price; a sell level sells the token
// worth amountUsd at its price (the token is taken as held from the start). Pure: no I/O.
import { LINE_EPSILON } from "./fill-rules.js";
import type { PriceSeries } from "./series.js";

export type LadderParams = {
  side: "buy" | "sell";
  levels: { price: number; amountUsd: number }[];
  /** The hook's commission, basis points of each fill's output. */
  feeBps: number;
};

export type LadderLevelResult = {
  price: number;
  amountUsd: number;
  filled: boolean;
  /** Start of the candle that filled it (unix seconds), or null. */
  filledAt: number | null;
  /** Input of the order: USDG for a buy, token for a sell. */
  amountIn: number;
  /** Output after the commission (token for a buy, USDG for a sell), 0 when unfilled. */
  amountOut: number;
  /** Commission in the output token. */
  commission: number;
  /** Commission in USD at the level's price. */
  commissionUsd: number;
};

export type LadderResult = {
  levels: LadderLevelResult[];
  filledLevels: number;
  feesUsd: number;
  startValueUsd: number;
  endValueUsd: number;
  profitUsd: number;
  returnPct: number;
  firstOpen: number | null;
  lastClose: number | null;
};

export function backtestLadder(s: PriceSeries, p: LadderParams): LadderResult {
  const f = p.feeBps / 10_000;
  const n = s.length;
  const levels: LadderLevelResult[] = p.levels.map((l) => ({
    price: l.price,
    amountUsd: l.amountUsd,
    filled: false,
    filledAt: null,
    amountIn: p.side === "buy" ? l.amountUsd : l.amountUsd / l.price,
    amountOut: 0,
    commission: 0,
    commissionUsd: 0,
  }));
  for (const level of levels) {
    // Each level is its own order: the first candle that reaches it fills it.
    let i = 0;
    if (p.side === "buy") {
      const at = level.price * (1 + LINE_EPSILON);
      while (i < n && s.low[i]! > at) i++;
    } else {
      const at = level.price * (1 - LINE_EPSILON);
      while (i < n && s.high[i]! < at) i++;
    }
    if (i === n) continue;
    const gross = p.side === "buy" ? level.amountIn / level.price : level.amountIn * level.price;
    level.filled = true;
    level.filledAt = s.start[i]!;
    level.commission = gross * f;
    level.amountOut = gross - level.commission;
    level.commissionUsd = p.side === "buy" ? level.commission * level.price : level.commission;
  }
  const firstOpen = n ? s.open[0]! : null;
  const lastClose = n ? s.close[n - 1]! : null;
  const mark = lastClose ?? 0;
  let start = 0;
  let end = 0;
  for (const l of levels) {
    if (p.side === "buy") {
      start += l.amountIn;
      end += l.filled ? l.amountOut * mark : l.amountIn;
    } else {
      // The tokens to sell are valued at the first open when the run starts.
      start += l.amountIn * (firstOpen ?? l.price);
      end += l.filled ? l.amountOut : l.amountIn * mark;
    }
  }
  const profitUsd = end - start;
  return {
    levels,
    filledLevels: levels.filter((l) => l.filled).length,
    feesUsd: levels.reduce((a, l) => a + l.commissionUsd, 0),
    startValueUsd: start,
    endValueUsd: end,
    profitUsd,
    returnPct: start > 0 ? (profitUsd / start) * 100 : 0,
    firstOpen,
    lastClose,
  };
}
