// Prices on chain are USDG per whole token in 18-decimal fixed point ("priceX18"); USDG has 6 decimals.
// These mirror devnet/contracts/core/PriceMath.sol exactly (same integer rounding). The units are named here
// once (priceX18 to a USD number is format.ts's priceUsd).

export const USDG_DECIMALS = 6;

/** One in 18-decimal fixed point (priceX18, basket weights, BPT). */
export const ONE_X18 = 10n ** 18n;

/** A day in seconds (UTC days are floor(unix seconds / DAY_S)). */
export const DAY_S = 86_400;

/** A day in milliseconds. */
export const DAY_MS = DAY_S * 1000;

/** priceX18 from a USD price given as a number (for configuration and tests, not for money paths). */
export function priceToX18(price: number): bigint {
  const [int, frac = ""] = price.toFixed(18).split(".");
  return BigInt(int!) * ONE_X18 + BigInt(frac.padEnd(18, "0").slice(0, 18));
}

/** USDG base units worth `tokenAmount` base units of a token at `priceX18`. */
export function tokenToUsdg(tokenAmount: bigint, decimals: number, priceX18: bigint): bigint {
  return (tokenAmount * priceX18) / 10n ** BigInt(decimals) / 10n ** 12n;
}

/** Token base units that `usdgAmount` buys at `priceX18`. */
export function usdgToToken(usdgAmount: bigint, decimals: number, priceX18: bigint): bigint {
  return (usdgAmount * 10n ** 12n * 10n ** BigInt(decimals)) / priceX18;
}

/** priceX18 of a pool holding `reserveToken` against `reserveUsdg`. */
export function spotPriceX18(reserveToken: bigint, decimals: number, reserveUsdg: bigint): bigint {
  if (reserveToken === 0n) return 0n;
  return (reserveUsdg * 10n ** 12n * 10n ** BigInt(decimals)) / reserveToken;
}
