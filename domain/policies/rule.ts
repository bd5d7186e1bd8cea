// The allow-list's rules as data: the shape of a rule (the contracts a transaction may go to, the function
// it may call, the calldata words that must be the wallet or a given spender) and the helpers each product's
// policy writes its rules with (domain/products/<product>/index.ts). Pure.
import { toFunctionSelector, type Abi, type AbiFunction } from "viem";
import { testTokenAbi } from "../../abis/index.js";

/** The deployment facts the documents need (a subset of adapters/chain/deployments.ts's Deployments). */
export type PolicyDeployments = {
  contracts: Record<string, string | undefined>;
  vaults: readonly {
    address: string;
    family: "merged" | "up" | "stock-token";
    agent: boolean;
    depositQueue?: string;
    withdrawalQueue?: string;
    redeemQueue?: string;
    router?: string;
  }[];
};

/** A function the rule allows, with its ABI item (for the provider that decodes calldata by ABI). */
export type AllowedFunction = { selector: `0x${string}`; signature: string; item: AbiFunction };

/** A calldata word (by argument position) that must hold an address. */
export type WordCheck = { word: number; param: string; equals: "wallet" | readonly string[] };

/** Pairs of (target, address at a word): the share approvals, where each vault's shares go to its own queue or router. */
export type PairCheck = { word: number; param: string; pairs: readonly (readonly [string, string])[] };

export type AllowRule = {
  name: string;
  description: string;
  /** Lowercase targets; null means any contract (token approvals, where the spender is what matters). */
  to: readonly string[] | null;
  functions: readonly AllowedFunction[];
  words: readonly WordCheck[];
  pair?: PairCheck;
  notes: string[];
};

/** A function of an ABI, by name (and argument count where names repeat). */
export const fn = (abi: Abi, name: string, inputs?: number): AllowedFunction => {
  const item = abi.find((x): x is AbiFunction => x.type === "function" && x.name === name && (inputs === undefined || x.inputs.length === inputs));
  if (!item) throw new Error(`no function ${name}`);
  const selector = toFunctionSelector(item);
  return { selector, signature: `${name}(${item.inputs.map((i) => i.type).join(",")})`, item };
};
export const lower = (a: string | undefined): string | undefined => a?.toLowerCase();
/** The addresses given, lowercase, each once. */
export const defined = (xs: (string | undefined)[]): string[] => [...new Set(xs.filter((x): x is string => typeof x === "string").map((x) => x.toLowerCase()))];

/** ERC-20 approve: every product's approvals. */
export const approve = fn(testTokenAbi, "approve");

/** The agent vaults by family, and the lowercase addresses of the other contracts the rules name. */
export type PolicyProducts = {
  merged: PolicyDeployments["vaults"];
  up: PolicyDeployments["vaults"];
  stock: PolicyDeployments["vaults"];
  usdg?: string;
  hook?: string;
  grid?: string;
  zap?: string;
  router?: string;
};

/** Word 0 (the spender) is one of these addresses. */
export const spender = (equals: readonly string[]): WordCheck => ({ word: 0, param: "spender", equals });
/** The word is the wallet. */
export const wallet = (word: number, param: string): WordCheck => ({ word, param, equals: "wallet" });
