// The service's own token list (config/token-list.json): verified tokens by address, with a category.
import list from "../../config/token-list.json" with { type: "json" };
import type { Address } from "viem";
import type { TokenCategory } from "./deployments.js";

export type ListedToken = { address: Address; symbol: string; category: TokenCategory };

const byAddress = new Map((list.tokens as ListedToken[]).map((t) => [t.address.toLowerCase(), t]));

export function listedToken(address: string): ListedToken | undefined {
  return byAddress.get(address.toLowerCase());
}

export const listedTokens = (): ListedToken[] => [...byAddress.values()];
