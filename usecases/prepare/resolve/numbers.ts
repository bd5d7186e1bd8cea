// A request's decimal strings as chain integers (amounts, prices, ids; too many decimals or too large is
// 400 INVALID_REQUEST) and back, and the slippage arithmetic on the minimums.
import { invalid } from "./build.js";

export { lessBps } from "../../../domain/bundles/decode.js";

export function slippageOf(body: { slippageBps?: number }): number {
  return body.slippageBps ?? 100;
}

/** A decimal string in whole units to base units; more fraction digits than `decimals` is INVALID_REQUEST. */
export function toBaseUnits(field: string, value: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) throw invalid(field, "must be a decimal amount (digits, optionally a dot and digits)");
  const [, whole, fraction = ""] = match;
  const trimmed = fraction.replace(/0+$/, "");
  if (trimmed.length > decimals) throw invalid(field, `must have at most ${decimals} decimals`);
  const units = BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(trimmed.padEnd(decimals, "0") || "0");
  // No token's supply comes near 2^128 base units; beyond it an amount only overflows the contracts'
  // arithmetic or viem's uint256 encoding (a 500 before this guard).
  if (units > MAX_AMOUNT_UNITS) throw invalid(field, `is too large (at most ${MAX_AMOUNT_UNITS} base units)`);
  return units;
}

/** The largest amount a request may name, in base units (2^128 - 1). */
export const MAX_AMOUNT_UNITS = 2n ** 128n - 1n;

/** A decimal USDG-per-token price to priceX18 (18 decimals). */
export function toPriceX18(field: string, value: string): bigint {
  const price = toBaseUnits(field, value, 18);
  if (price === 0n) throw invalid(field, "must be more than 0");
  return price;
}

/** An id given as a decimal string. */
export function toId(field: string, value: string): bigint {
  if (!/^\d{1,78}$/.test(value)) throw invalid(field, "must be an integer id (digits)");
  const id = BigInt(value);
  // 78 digits can exceed uint256, which viem cannot encode (a 500 before this guard).
  if (id >= 2n ** 256n) throw invalid(field, "must be an integer id below 2^256");
  return id;
}

/** Whole units as a decimal string (for messages and params). */
export function units(amount: bigint, decimals: number): string {
  const s = amount.toString().padStart(decimals + 1, "0");
  const whole = s.slice(0, s.length - decimals);
  const fraction = s.slice(s.length - decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}
