// The builders' input checks: each refuses a bad value with a BundleError naming the field, in its message and
// as its `field` (INVALID_REQUEST, or AMOUNT_TOO_SMALL for a zero amount). Not exported from the package index.
import { getAddress, isAddress, maxUint256, zeroAddress, type Address, type Hex } from "viem";
import { BundleError } from "./types.js";

/** A checksummed, non-zero address, or INVALID_REQUEST naming the field. */
export function checkAddress(field: string, value: unknown): Address {
  if (typeof value !== "string" || !isAddress(value, { strict: false }))
    throw new BundleError("INVALID_REQUEST", `${field} must be an address (0x and 40 hexadecimal characters)`, undefined, field);
  const address = getAddress(value);
  if (address === zeroAddress) throw new BundleError("INVALID_REQUEST", `${field} must not be the zero address`, undefined, field);
  return address;
}

/** A uint256 (0 allowed): minimums, ids, prices. */
export function checkUint(field: string, value: unknown): bigint {
  if (typeof value !== "bigint" || value < 0n || value > maxUint256)
    throw new BundleError("INVALID_REQUEST", `${field} must be an integer from 0 to 2^256-1`, undefined, field);
  return value;
}

/** A uint8 mask in `min`..`max`. */
export function checkMask(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw new BundleError("INVALID_REQUEST", `${field} must be an integer from ${min} to ${max}`, undefined, field);
  return value;
}

/** An amount a step moves: a uint256 above 0 (0 is AMOUNT_TOO_SMALL). */
export function checkAmount(field: string, value: unknown): bigint {
  const amount = checkUint(field, value);
  if (amount === 0n) throw new BundleError("AMOUNT_TOO_SMALL", `${field} must be more than 0`, undefined, field);
  return amount;
}

/** A calldata blob (0x-prefixed, whole bytes). */
export function checkHex(field: string, value: unknown): Hex {
  if (typeof value !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(value))
    throw new BundleError("INVALID_REQUEST", `${field} must be 0x-prefixed hexadecimal bytes`, undefined, field);
  return value as Hex;
}

export function checkBoolean(field: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw new BundleError("INVALID_REQUEST", `${field} must be true or false`, undefined, field);
  return value;
}

/** A field that names one of a closed list (an action): INVALID_REQUEST listing the choices otherwise. */
export function checkChoice<T extends string>(field: string, value: T, choices: readonly T[]): T {
  if (!choices.includes(value)) throw new BundleError("INVALID_REQUEST", `${field} must be one of ${choices.join(", ")}`, undefined, field);
  return value;
}

/** A field a family, mode or action needs: INVALID_REQUEST when it is missing. */
export function required<T>(field: string, value: T | undefined, why: string): T {
  if (value === undefined || value === null) throw new BundleError("INVALID_REQUEST", `${field} is required ${why}`, undefined, field);
  return value;
}

/** The default branch of a switch over a closed set (family, mode, action): INVALID_REQUEST at run time. */
export function unknownChoice(field: string, value: never): never {
  throw new BundleError("INVALID_REQUEST", `${field} ${JSON.stringify(value)} is not one of the accepted values`, undefined, field);
}
