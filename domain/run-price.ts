// The price of a backtest or ranges run: free up to FREE_DAYS days of history, then a price per day past
// them (x402, in USDG). The one rule; the 402's amount, the settlement and the documents all use it.
import { parseUnits } from "viem";
import { USDG_DECIMALS } from "./price.js";

/** Days of history a grid or ladder backtest, or a ranges run, replays for free. */
export const FREE_DAYS = 30;

/** USDG a day past FREE_DAYS when X402_PRICE_PER_DAY_USDG is not set. */
export const DEFAULT_PRICE_PER_DAY_USDG = 0.01;

/** USDG base units a run over `days` costs at `pricePerDayUsdg` a day past FREE_DAYS (0n: free). */
export function runPrice(days: number, pricePerDayUsdg: number): bigint {
  if (days <= FREE_DAYS) return 0n;
  return BigInt(days - FREE_DAYS) * parseUnits(pricePerDayUsdg.toFixed(USDG_DECIMALS), USDG_DECIMALS);
}
