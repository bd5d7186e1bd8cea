// The words the sign page describes calls with: the names the caller knows (tokens, contracts, the owner) and
// how amounts, prices, contracts and receivers read. Each product's calls.ts says its calls with these. Pure.
import { formatUnits, getAddress, type Address } from "viem";
import type { AbiName } from "./call.js";

/** A token (or vault share) the steps may name. */
export type DescribeToken = {
  symbol: string;
  decimals: number;
  /** On the service's own token list; an unverified token's symbol is its own, so the page adds its address. */
  verified?: boolean;
};

/** A contract the steps may call or name. */
export type DescribeContract = {
  /** How a sentence names it, e.g. "the Merged WETH/USDG vault". */
  name: string;
  /** The ABI its calls are read with, where a selector is shared (cancel(uint256) on queues and the hook). */
  abi?: AbiName;
  /** A queue's or router's vault: whose shares it takes. */
  vault?: Address;
  /** A vault's paired (merged, up) or held (stock-token) token: what an in-kind exit pays besides USDG. */
  token?: Address;
};

export type DescribeNames = {
  /** The signing wallet: receivers equal to it read "your wallet". */
  owner: Address;
  usdg: Address;
  /** By address, any case. */
  tokens: Readonly<Record<string, DescribeToken>>;
  contracts: Readonly<Record<string, DescribeContract>>;
};

export const lower = (a: string) => a.toLowerCase();
/** A checksummed address, or undefined for anything else. */
export const asAddress = (x: unknown): Address | undefined => (typeof x === "string" && /^0x[0-9a-fA-F]{40}$/.test(x) ? getAddress(x) : undefined);

/** "1234567.5" -> "1,234,567.5": the exact value, grouped for reading (never rounded: it is money). */
export function groupDigits(decimal: string): string {
  const [whole = "0", fraction] = decimal.split(".");
  const sign = whole.startsWith("-") ? "-" : "";
  const digits = whole.replace("-", "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}${digits}${fraction ? `.${fraction}` : ""}`;
}

const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;

/** The words of one set of names: tokens, amounts, prices and contracts. */
export function wordsOf(names: DescribeNames) {
  const token = (address: unknown): DescribeToken | undefined => (typeof address === "string" ? names.tokens[lower(address)] : undefined);
  const symbolOf = (address: unknown): string => {
    const t = token(address);
    const a = asAddress(address);
    if (!t) return a ? `token ${a}` : "an unknown token";
    return t.verified === false && a ? `${t.symbol} (unverified token ${a})` : t.symbol;
  };
  const amount = (value: bigint, address: unknown): string => {
    const t = token(address);
    if (!t) return `${groupDigits(value.toString())} base units of ${symbolOf(address)}`;
    return `${groupDigits(formatUnits(value, t.decimals))} ${symbolOf(address)}`;
  };
  const contract = (address: unknown): string => {
    const a = asAddress(address);
    if (!a) return "an unknown contract";
    return names.contracts[lower(a)]?.name ?? `the contract ${a}`;
  };
  /** USDG per whole token from a priceX18 (18 decimals). */
  const price = (priceX18: bigint, of: unknown) => `${groupDigits(formatUnits(priceX18, 18))} USDG per ${token(of)?.symbol ?? symbolOf(of)}`;
  const who = (address: unknown): string => {
    const a = asAddress(address);
    if (!a) return "an unknown address";
    return lower(a) === lower(names.owner) ? `your wallet (${short(a)})` : `${a}, which is NOT your wallet`;
  };
  return { token, symbolOf, amount, contract, price, who };
}

export type Words = ReturnType<typeof wordsOf>;
/** What a call says: its action's short name, one sentence, and further lines. */
export type Said = { action: string; summary: string; details?: string[] };
/** A contract function in words, from its decoded arguments, the contract called and the names. */
export type Describer = (args: readonly unknown[], to: Address, w: Words, names: DescribeNames) => Said;
