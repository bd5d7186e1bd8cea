// Figures of a vault for agents, from its projection row: status (full derived from the cap), APR from
// harvest snapshots, TVL and share price (as the vault's own views compute them, at the token's price
// now), limits and withdrawal modes. Pure: no I/O.
import { formatUnits, maxUint256 } from "viem";
import { tokenToUsdg, USDG_DECIMALS, DAY_S } from "./price.js";

export type VaultFamily = "merged" | "up" | "stock-token";
export type VaultStatus = "open" | "full" | "closed" | "paused";
export type WithdrawalMode = "usdg" | "in-kind" | "queue";

const YEAR_SECONDS = 365 * DAY_S;

/** Decimals of a family's shares: 12 for pair vaults, 18 for stock-token vaults. */
export const shareDecimals = (family: VaultFamily): number => (family === "stock-token" ? 18 : 12);

/** Whether a cap is set (an uncapped vault's cap is the largest uint256). */
export const isCapped = (depositCap: bigint): boolean => depositCap !== maxUint256;

/**
 * The status agents see: the vault's own, except that an open vault whose total assets and queued
 * deposits reach its cap is full. The reason is the vault's own, or says the cap is reached.
 */
export function vaultStatus(v: { status: string; reason: string; depositCap: bigint; totalAssets: bigint; pendingAssets: bigint }): {
  status: VaultStatus;
  reason: string;
} {
  const own = (["open", "full", "closed", "paused"] as const).find((s) => s === v.status) ?? "closed";
  if (own === "open" && v.totalAssets + v.pendingAssets >= v.depositCap) return { status: "full", reason: "Deposit cap reached; withdrawals stay open" };
  return { status: own, reason: v.reason || defaultReason[own] };
}

const defaultReason: Record<VaultStatus, string> = {
  open: "Accepting deposits",
  full: "Deposit cap reached; withdrawals stay open",
  closed: "Closed to new deposits; withdrawals stay open",
  paused: "Deposits paused",
};

/**
 * What a deposit may add now: the room left under the cap (never negative) while the vault is open,
 * 0 in any other status (a full, closed or paused vault refuses every deposit), null when open and
 * uncapped.
 */
export function vaultRoom(v: { status: string; reason: string; depositCap: bigint; totalAssets: bigint; pendingAssets: bigint }): bigint | null {
  if (vaultStatus(v).status !== "open") return 0n;
  if (!isCapped(v.depositCap)) return null;
  const used = v.totalAssets + v.pendingAssets;
  return used >= v.depositCap ? 0n : v.depositCap - used;
}

/** How shares can be withdrawn, by family (merged vaults add the queue when they have a redeem queue). */
export function withdrawalModes(family: VaultFamily, hasRedeemQueue: boolean): WithdrawalMode[] {
  if (family === "merged") return hasRedeemQueue ? ["usdg", "in-kind", "queue"] : ["usdg", "in-kind"];
  if (family === "up") return ["queue", "in-kind"];
  return ["usdg", "in-kind"];
}

/** The figures a vault's share conversions need (asset base units, share base units). */
export type ShareFigures = { family: string; totalAssets: bigint; totalSupply: bigint };

/** What a pair vault holds for its shareholders (PairVault.usdgAssets, tokenAssets), and a stock vault's stock. */
export type VaultBooks = { family: string; usdgAssets: bigint; tokenAssets: bigint; totalAssets: bigint };

/**
 * The vault's totalAssets() at `priceX18` (the token's market price now): a pair vault's USDG plus
 * its token valued as PairVault.totalAssets does (same rounding; no price counts the token as 0);
 * a stock-token vault's own figure, the stock it holds (its USD value moves, not its assets).
 */
export function vaultTotalAssets(books: VaultBooks, token: { decimals: number | null; priceX18: bigint | null }): bigint {
  if (books.family === "stock-token") return books.totalAssets;
  const price = token.priceX18 ?? 0n;
  if (price === 0n || books.tokenAssets === 0n) return books.usdgAssets;
  return books.usdgAssets + tokenToUsdg(books.tokenAssets, token.decimals ?? 18, price);
}

/** Virtual shares of the conversions: PairVault's VIRTUAL_SHARES, ERC4626's 10^0 for stock vaults. */
const virtualShares = (family: string): bigint => (family === "stock-token" ? 1n : 1_000_000n);

/** The vault's convertToAssets(shares): shares × (totalAssets + 1) / (totalSupply + virtual shares), rounded down. */
export function convertToAssets(shares: bigint, v: ShareFigures): bigint {
  return (shares * (v.totalAssets + 1n)) / (v.totalSupply + virtualShares(v.family));
}

/**
 * Whole units of the asset one whole share converts to (the vault's convertToAssets of one share, so
 * exactly what the chain answers); null without shares.
 */
export function sharePrice(v: ShareFigures, assetDecimals: number): number | null {
  if (v.totalSupply === 0n) return null;
  const one = 10n ** BigInt(shareDecimals(v.family as VaultFamily));
  return Number(formatUnits(convertToAssets(one, v), assetDecimals));
}

/** USD value of `amount` base units of the asset: USDG at 1, a stock token at `priceX18` (null without one). */
export function assetUsd(amount: bigint, family: VaultFamily, assetDecimals: number, priceX18: bigint | null): number | null {
  if (family !== "stock-token") return Number(formatUnits(amount, USDG_DECIMALS));
  if (priceX18 === null || priceX18 === 0n) return null;
  return Number(formatUnits(tokenToUsdg(amount, assetDecimals, priceX18), USDG_DECIMALS));
}

export type Snapshot = { timestamp: number; totalAssets: bigint; gross: bigint; fee: bigint };

/** The harvests of a window, folded (what `aprFromWindow` needs). */
export type HarvestWindow = { count: number; firstAt: number; lastAt: number; assetsSum: bigint; netAfterFirst: bigint };

/** Folds harvest snapshots (oldest first) into a HarvestWindow, or undefined when there are none. */
export function harvestWindow(snapshots: Snapshot[]): HarvestWindow | undefined {
  const first = snapshots[0];
  if (!first) return undefined;
  let assetsSum = 0n;
  let netAfterFirst = 0n;
  for (const [i, s] of snapshots.entries()) {
    assetsSum += s.totalAssets;
    if (i > 0) netAfterFirst += s.gross - s.fee;
  }
  return { count: snapshots.length, firstAt: first.timestamp, lastAt: snapshots.at(-1)!.timestamp, assetsSum, netAfterFirst };
}

/**
 * APR in percent from the harvests of a window: the net income (gross - fee) of every harvest after
 * the first, over the time from the first to the last, divided by the average total assets,
 * annualised (simple). The first harvest only marks the start: its income was earned before the
 * window. Null with fewer than two harvests or no assets.
 */
export function aprFromWindow(w: HarvestWindow | undefined): { aprPct: number | null; days: number } {
  if (!w || w.count < 2) return { aprPct: null, days: 0 };
  const span = w.lastAt - w.firstAt;
  if (span <= 0) return { aprPct: null, days: 0 };
  const days = round(span / DAY_S, 3);
  const average = w.assetsSum / BigInt(w.count);
  if (average === 0n) return { aprPct: null, days };
  // Percent with 1e-6 resolution, in integers until the end.
  const ppm = (w.netAfterFirst * BigInt(YEAR_SECONDS) * 100_000_000n) / (average * BigInt(span));
  return { aprPct: Number(ppm) / 1_000_000, days };
}

/** aprFromWindow of snapshots (oldest first). */
export const aprFromSnapshots = (snapshots: Snapshot[]) => aprFromWindow(harvestWindow(snapshots));

export const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
