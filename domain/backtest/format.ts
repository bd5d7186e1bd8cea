// Numbers of the simulations as they appear in answers: prices as decimal strings (the prepare
// routes' inputs), USD figures rounded to the cent, percentages to 0.01. Pure: no I/O.

/** A price as a decimal string with 6 significant digits and no exponent ("2450.51", "0.000123457"). */
export function priceString(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return "0";
  const digits = Math.max(0, 6 - Math.floor(Math.log10(n)) - 1);
  const s = n.toFixed(Math.min(digits, 18));
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}

export const usd = (n: number) => Math.round(n * 100) / 100;
export const pct = (n: number) => Math.round(n * 100) / 100;
export const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();
