// How answers write chain values: checksummed addresses, decimal-string amounts (a whole-token value
// and its base units, named `x` and `xUnits`), USD prices as numbers, and ISO 8601 UTC times.
import { formatUnits, getAddress, type Address } from "viem";
import { ONE_X18 } from "./price.js";

/**
 * Most addresses `checksum` remembers (about 200 bytes each, 20 MB in all): the owners of 100,000 agents
 * that poll. A miss is a keccak (20 µs on this project's 2-core benchmark machine), and an agent polling
 * every half minute is asked for again after thousands of others.
 */
const CHECKSUMS_KEPT = 100_000;

/**
 * A remembered checksum (projections store lowercase): an answer names the same vaults, tokens and owner
 * many times, and each miss costs a keccak. Two plain Maps, not viem's own LRU, whose every hit reorders it
 * (a delete and a set): that reorder was 4% of an account answer's CPU. When the recent Map holds
 * `kept / 2` it becomes the older one and a new one starts; an address asked for again moves back to the
 * recent one. So an address asked for within the last `kept / 2` new ones is kept, and the memory never
 * empties all at once.
 */
export function checksumMemo(kept: number): (address: string) => Address {
  let recent = new Map<string, Address>();
  let older = new Map<string, Address>();
  return (address) => {
    let known = recent.get(address);
    if (known === undefined) {
      known = older.get(address) ?? getAddress(address);
      if (recent.size >= kept / 2) {
        older = recent;
        recent = new Map();
      }
      recent.set(address, known);
    }
    return known;
  };
}

/** Checksummed address, remembered (checksumMemo). */
export const checksum = checksumMemo(CHECKSUMS_KEPT);

/**
 * Whole-token decimal string of base units, e.g. 1500000n with 6 decimals -> "1.5". Zero without viem's
 * padding and trimming: most of an answer's fill, owed and fee amounts are zero.
 */
export const units = (amount: bigint, decimals: number): string => (amount === 0n ? "0" : formatUnits(amount, decimals));

/** The pair an answer gives for an amount: `{[name]: "1.5", [name + "Units"]: "1500000"}`. */
export function amountPair<N extends string>(name: N, amount: bigint, decimals: number): Record<N | `${N}Units`, string> {
  return { [name]: units(amount, decimals), [`${name}Units`]: amount.toString() } as Record<N | `${N}Units`, string>;
}

/** A priceX18 (USDG per whole token, 18 decimals) as a number of USD, for display and planning. */
export const priceUsd = (priceX18: bigint): number => Number(formatUnits(priceX18, 18));

/** The pair an answer gives for a price: `{[name]: 3140.7, [name + "X18"]: "3140700000000000000000"}`. */
export function pricePair<N extends string>(name: N, priceX18: bigint | string): Record<N, number> & Record<`${N}X18`, string> {
  return { [name]: priceUsd(BigInt(priceX18)), [`${name}X18`]: priceX18.toString() } as Record<N, number> & Record<`${N}X18`, string>;
}

/**
 * A priceX18 as a float for simulations over candles: one division, within a unit in the last place of
 * `priceUsd` (backtests are estimates) and about 15 times faster, which counts over 50,000 candle prices.
 */
const ONE_X18_FLOAT = Number(ONE_X18);
export const priceFloat = (priceX18: bigint): number => Number(priceX18) / ONE_X18_FLOAT;

/** Unix seconds as ISO 8601 UTC. */
export const isoTime = (seconds: number | bigint): string => new Date(Number(seconds) * 1000).toISOString();
