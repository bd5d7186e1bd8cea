// A contract call as the checks and the words read it: the ABI it decodes with, its arguments, and what it
// pulls from the caller. Each product's calls.ts declares its calls with these types. Pure.
import type { AbiParameter, Address } from "viem";
import type * as abis from "../../abis/index.js";

export type AbiName = keyof typeof abis;

export type DecodedStep = {
  /** The export name in abis/ (e.g. "mergedVaultAbi"); an ERC-20 approve decodes as "testTokenAbi". */
  contractAbiName: AbiName;
  functionName: string;
  /** Positional, as viem decodes them (structs are objects with their field names). */
  args: readonly unknown[];
  /** The function's ABI parameters, for names. */
  inputs: readonly AbiParameter[];
};

/** A decoded argument as an integer (0 when it is not one). */
export const big = (x: unknown): bigint => (typeof x === "bigint" ? x : 0n);
/** A struct's field (undefined when it is not a struct). */
export const field = (x: unknown, name: string): unknown => (x !== null && typeof x === "object" ? (x as Record<string, unknown>)[name] : undefined);
/** A decoded address argument, as decoded. */
export const addr = (x: unknown): Address | undefined => (typeof x === "string" ? (x as Address) : undefined);

/** What a pulling step takes from the caller: an amount, and its token when the call names it ("usdg": USDG). */
export type Spend = { amount: bigint; token: Address | "usdg" | undefined };
export type SpendRule = (args: readonly unknown[]) => Spend;
