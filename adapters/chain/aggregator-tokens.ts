// Tokens as the swap and basket routes take them: a listed symbol (the service's token list), an
// address (listed or not: an unlisted token is shown by address, with symbol null), or ETH for native
// ETH. 422 UNKNOWN_TOKEN for a symbol not on the list, NOT_A_TOKEN for an address that is no ERC-20.
import { erc20Abi, getAddress, isAddress, type Address, type PublicClient } from "viem";
import { ApiError } from "../../domain/errors.js";
import { NATIVE_ETH } from "../../domain/bundles/steps.js";
import type { DeployedToken, Deployments } from "./deployments.js";
import { listedToken, listedTokens } from "./token-list.js";
import { sameAddress } from "../../domain/address.js";
import { USDG_DECIMALS } from "../../domain/price.js";

export { NATIVE_ETH };

export type ResolvedToken = {
  address: Address;
  /** The listed symbol, or null for an unlisted token (its own symbol is not trusted). */
  symbol: string | null;
  decimals: number;
  listed: boolean;
  native: boolean;
  /** An unlisted token's own symbol, for warnings only. */
  ownSymbol?: string;
};

const native = (): ResolvedToken => ({ address: getAddress(NATIVE_ETH), symbol: "ETH", decimals: 18, listed: true, native: true });

/** A token the deployments file knows: USDG (6 decimals), or one of its tokens, by address (any case). */
export function knownToken(deployments: Deployments, address: string): { symbol: string; decimals: number } | undefined {
  if (deployments.contracts.usdg && sameAddress(deployments.contracts.usdg, address)) return { symbol: "USDG", decimals: USDG_DECIMALS };
  return deployments.tokens.find((t) => sameAddress(t.address, address));
}

/** One of the deployments file's tokens by address or symbol (any case), or undefined. */
export function deployedToken(deployments: Deployments, input: string): DeployedToken | undefined {
  return isAddress(input, { strict: false })
    ? deployments.tokens.find((t) => sameAddress(t.address, input))
    : deployments.tokens.find((t) => t.symbol.toLowerCase() === input.toLowerCase());
}

/** True for "ETH" (any case) or the native-ETH placeholder address. */
export const isNativeEth = (text: string): boolean => text.toUpperCase() === "ETH" || sameAddress(text, NATIVE_ETH);

const knownDecimals = (deployments: Deployments, address: string) => knownToken(deployments, address)?.decimals;

/** `input` as a token, or 422 UNKNOWN_TOKEN / NOT_A_TOKEN (field names the request field). */
export async function resolveToken(client: PublicClient, deployments: Deployments, input: string, field = "token"): Promise<ResolvedToken> {
  const text = input.trim();
  if (isNativeEth(text)) return native();
  if (isAddress(text, { strict: false })) {
    const address = getAddress(text);
    const listed = listedToken(address);
    const decimals = knownDecimals(deployments, address);
    if (listed && decimals !== undefined) return { address, symbol: listed.symbol, decimals, listed: true, native: false };
    const [code, chainDecimals, ownSymbol] = await Promise.all([
      client.getCode({ address }).catch(() => undefined),
      client.readContract({ address, abi: erc20Abi, functionName: "decimals" }).catch(() => undefined),
      client.readContract({ address, abi: erc20Abi, functionName: "symbol" }).catch(() => undefined),
    ]);
    if (!code || code === "0x" || chainDecimals === undefined) {
      throw new ApiError("NOT_A_TOKEN", `${field}: ${address} is not a token on this chain`, { token: address });
    }
    return { address, symbol: listed?.symbol ?? null, decimals: chainDecimals, listed: !!listed, native: false, ownSymbol };
  }
  const byListedSymbol = listedTokens().find((t) => t.symbol.toLowerCase() === text.toLowerCase());
  if (!byListedSymbol) throw new ApiError("UNKNOWN_TOKEN", `${field}: ${text} is not a listed symbol; give the token's address`, { token: text });
  const address = getAddress(byListedSymbol.address);
  const decimals =
    knownDecimals(deployments, address) ?? (await client.readContract({ address, abi: erc20Abi, functionName: "decimals" }).catch(() => undefined));
  if (decimals === undefined) throw new ApiError("NOT_A_TOKEN", `${field}: ${text} is not a token on this chain`, { token: address });
  return { address, symbol: byListedSymbol.symbol, decimals, listed: true, native: false };
}

/**
 * An aggregator route's hops for people: a listed token by its listed symbol, any other by its
 * address (an unlisted token's own symbol is its own choice: "USDG" or "SCAM" proves nothing).
 */
export function hopNames(path: readonly Address[]): string[] {
  return path.map((hop) => listedToken(hop)?.symbol ?? getAddress(hop));
}

/** The warning an answer carries for an unlisted token. */
export function unlistedWarning(token: ResolvedToken): string | undefined {
  if (token.listed) return undefined;
  return `${token.address} is not on the service's token list${token.ownSymbol ? ` (it calls itself ${token.ownSymbol}, which proves nothing)` : ""}: check the address before you trade it`;
}
