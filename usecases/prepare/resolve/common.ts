// What the resolvers share: the agent vault lookup, tokens, contracts, decimal amounts and the
// translation of a builder's refusal into the catalog's ApiError.
import { erc20Abi, getAddress, isAddress, zeroAddress, type Address } from "viem";
import { marketRegistryAbi } from "../../../abis/index.js";
import type { DeployedToken, DeployedVault } from "../../../adapters/chain/deployments.js";
import type { Projections } from "../../../adapters/db/projections.js";
import { BundleError } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { PrepareContext } from "../types.js";
import { sameAddress } from "../../../domain/address.js";

export const BPS = 10_000n;

/** `amount` less `bps` basis points, rounded down. */
export function lessBps(amount: bigint, bps: number): bigint {
  return (amount * (BPS - BigInt(bps))) / BPS;
}

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

export function invalid(field: string, message: string): ApiError {
  return new ApiError("INVALID_REQUEST", `${field}: ${message}`, { field, issues: [{ field, message }] });
}

/** A builder's refusal as the catalog answer (the codes are the catalog's already). */
export function fromBundleError(error: unknown): never {
  if (error instanceof BundleError) {
    const details = error.details === undefined ? undefined : { ...error.details };
    throw new ApiError(error.code, error.message, details);
  }
  throw error;
}

/** Runs a pure builder, turning its BundleError into an ApiError. */
export function build<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    return fromBundleError(error);
  }
}


/** A named singleton of the deployments file, or 503 NOT_DEPLOYED. */
export function contract(ctx: PrepareContext, name: string): Address {
  const address = ctx.deployments.contracts[name];
  if (!address) throw new ApiError("NOT_DEPLOYED", `${name} is not deployed on this chain`);
  return getAddress(address);
}

export const usdgOf = (ctx: PrepareContext) => contract(ctx, "usdg");

export type AgentVault = { deployed: DeployedVault; row: Projections["vault"] };

/** The vault agents may use (deployments and projection agree), or 404 NOT_AGENT_VAULT. */
export async function agentVault(ctx: PrepareContext, vault: string): Promise<AgentVault> {
  const deployed = ctx.deployments.vaults.find((v) => sameAddress(v.address, vault));
  if (!deployed || !deployed.agent) throw new ApiError("NOT_AGENT_VAULT", `${vault} is not a vault agents may use`);
  const row = await ctx.reads.selectFrom("vault").selectAll().where("address", "=", vault.toLowerCase() as `0x${string}`).executeTakeFirst();
  if (!row || !row.agent) throw new ApiError("NOT_AGENT_VAULT", `${vault} is not a vault agents may use`);
  return { deployed, row };
}

/** A market token as the order, grid and ladder-strategy resolvers use it. */
export type MarketToken = Pick<DeployedToken, "address" | "symbol" | "decimals">;

const unknownToken = (token: string, why: string) => new ApiError("UNKNOWN_TOKEN", `${token} ${why}`, { token });

/**
 * A market token (not USDG) by address or symbol: the deployments' tokens first, then the indexed
 * projection (a market opened after the deployments file was written), then, for an address the index
 * has not reached yet, the chain (the registry's pool, the token's decimals and symbol). A symbol names
 * only a verified token (an unverified one's symbol is its own): 422 UNKNOWN_TOKEN, give the address.
 * An address with no market is 422 MARKET_NOT_OPEN; one that is no token, UNKNOWN_TOKEN.
 */
export async function marketTokenOf(ctx: PrepareContext, input: string): Promise<MarketToken> {
  const usdg = ctx.deployments.contracts.usdg ?? zeroAddress;
  const byAddress = isAddress(input, { strict: false });
  if (byAddress && sameAddress(input, usdg)) throw unknownToken(input, "is USDG, the quote of every market: name the other token");
  const deployed = byAddress
    ? ctx.deployments.tokens.find((t) => sameAddress(t.address, input))
    : ctx.deployments.tokens.find((t) => t.symbol.toLowerCase() === input.toLowerCase());
  if (deployed) {
    if (sameAddress(deployed.address, usdg)) throw unknownToken(input, "is USDG, the quote of every market: name the other token");
    return { address: getAddress(deployed.address), symbol: deployed.symbol, decimals: deployed.decimals };
  }
  const row = await indexedToken(ctx, input, byAddress);
  if (row && !sameAddress(row.address, usdg)) return row;
  if (!byAddress) throw unknownToken(input, "is not a listed market token's symbol: give the token's address");
  const address = getAddress(input);
  const [pool, decimals, symbol] = await Promise.all([
    ctx.client.readContract({ address: contract(ctx, "markets"), abi: marketRegistryAbi, functionName: "poolOf", args: [address] }),
    ctx.client.readContract({ address, abi: erc20Abi, functionName: "decimals" }).catch(() => undefined),
    ctx.client.readContract({ address, abi: erc20Abi, functionName: "symbol" }).catch(() => undefined),
  ]);
  if (decimals === undefined) throw unknownToken(address, "is not a token on this chain");
  // Messages name an unindexed token by address: its own symbol proves nothing.
  if (pool === zeroAddress) throw new ApiError("MARKET_NOT_OPEN", `${address} has no open market`, { token: address });
  return { address, symbol: symbol ?? address, decimals };
}

/** A charted token of the index (PoolCreated writes symbol and decimals), or undefined: also when the
 *  index cannot be read (views not made yet), so an address still resolves from the chain. */
async function indexedToken(ctx: PrepareContext, input: string, byAddress: boolean): Promise<MarketToken | undefined> {
  try {
    const query = ctx.reads.selectFrom("token").select(["address", "symbol", "decimals"]).where("pool", "is not", null);
    const row = await (byAddress
      ? query.where("address", "=", input.toLowerCase() as Address)
      : query.where("verified", "=", true).where((eb) => eb(eb.fn("lower", ["symbol"]), "=", input.toLowerCase()))
    ).executeTakeFirst();
    return row && { address: getAddress(row.address), symbol: row.symbol, decimals: row.decimals };
  } catch {
    return undefined;
  }
}

/** The token's pool on the market registry, or 422 MARKET_NOT_OPEN. */
export async function openPool(ctx: PrepareContext, token: MarketToken): Promise<Address> {
  const pool = await ctx.client.readContract({ address: contract(ctx, "markets"), abi: marketRegistryAbi, functionName: "poolOf", args: [token.address] });
  if (pool === zeroAddress) throw new ApiError("MARKET_NOT_OPEN", `${token.symbol} has no open market`, { token: token.address });
  return pool;
}

/** The registry's price now (USDG per whole token, 18 decimals). */
export async function priceNow(ctx: PrepareContext, token: Address): Promise<bigint> {
  return ctx.client.readContract({ address: contract(ctx, "markets"), abi: marketRegistryAbi, functionName: "priceX18", args: [token] });
}

/** Whole units as a decimal string (for messages and params). */
export function units(amount: bigint, decimals: number): string {
  const s = amount.toString().padStart(decimals + 1, "0");
  const whole = s.slice(0, s.length - decimals);
  const fraction = s.slice(s.length - decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}
