// Vaults of the three families: the latest figures, the harvest snapshots (history, APR, earnings),
// and the keeper's last harvest. A pair vault's total assets are its books valued at the token's
// latest indexed price (as its totalAssets() values them), not the figure of its last harvest.
import { sql, type Kysely } from "kysely";
import { vaultTotalAssets } from "../../../domain/vault-figures.js";
import type { Projections } from "../projections.js";
import { x18 } from "./columns.js";
import { DAY_S } from "../../../domain/price.js";

export type VaultRow = {
  address: string;
  family: string;
  token: string;
  agent: boolean;
  listed: boolean;
  status: string;
  reason: string;
  depositCap: bigint;
  minDeposit: bigint;
  feeBps: number;
  rangeLowerX18: bigint;
  rangeUpperX18: bigint;
  /** The vault's totalAssets() at the token's latest indexed price (vaultTotalAssets). */
  totalAssets: bigint;
  /** A pair vault's books (0 for stock-token vaults). */
  usdgAssets: bigint;
  tokenAssets: bigint;
  totalSupply: bigint;
  pendingAssets: bigint;
  harvestedGross: bigint;
  harvestedFees: bigint;
  updatedAt: number;
  /** The paired or held token, from the token projection (null when it has no market). */
  tokenSymbol: string | null;
  tokenDecimals: number | null;
  tokenPriceX18: bigint | null;
  /** When the token's price last moved (null without a market). */
  tokenUpdatedAt: number | null;
};

/** A vault's harvests in a window, folded: the first one only marks the window's start. */
export type HarvestWindow = {
  count: number;
  firstAt: number;
  lastAt: number;
  /** Sum of total assets after each harvest (base units of the asset). */
  assetsSum: bigint;
  /** Net income (gross - fee) of every harvest after the first. */
  netAfterFirst: bigint;
};

export type VaultSnapshotRow = {
  vault: string;
  timestamp: number;
  totalAssets: bigint;
  totalSupply: bigint;
  gross: bigint;
  fee: bigint;
};

function vaultColumns(reads: Kysely<Projections>) {
  return reads
    .selectFrom("vault")
    .leftJoin("token", "token.address", "vault.token")
    .select([
      "vault.address",
      "vault.family",
      "vault.token",
      "vault.agent",
      "vault.listed",
      "vault.status",
      "vault.reason",
      "vault.depositCap",
      "vault.minDeposit",
      "vault.feeBps",
      x18("vault", "range_lower_x_18").as("rangeLowerX18"),
      x18("vault", "range_upper_x_18").as("rangeUpperX18"),
      "vault.totalAssets",
      "vault.usdgAssets",
      "vault.tokenAssets",
      "vault.totalSupply",
      "vault.pendingAssets",
      "vault.harvestedGross",
      "vault.harvestedFees",
      "vault.updatedAt",
      "token.symbol as tokenSymbol",
      "token.decimals as tokenDecimals",
      x18("token", "price_x_18").as("tokenPriceX18"),
      "token.updatedAt as tokenUpdatedAt",
    ]);
}

/** The row with its total assets valued now. */
const valued = (row: VaultRow): VaultRow => ({ ...row, totalAssets: vaultTotalAssets(row, { decimals: row.tokenDecimals, priceX18: row.tokenPriceX18 }) });

/** Every vault agents may use: listed in the registry with agent = true. */
export async function readAgentVaults(reads: Kysely<Projections>): Promise<VaultRow[]> {
  const rows = await vaultColumns(reads).where("vault.agent", "=", true).where("vault.listed", "=", true).orderBy("vault.address").execute();
  return (rows as VaultRow[]).map(valued);
}

/** One vault agents may use, or undefined (unknown, not listed, or agent = false). */
export async function readAgentVault(reads: Kysely<Projections>, address: string): Promise<VaultRow | undefined> {
  const row = await vaultColumns(reads)
    .where("vault.address", "=", address.toLowerCase() as `0x${string}`)
    .where("vault.agent", "=", true)
    .where("vault.listed", "=", true)
    .executeTakeFirst();
  return row ? valued(row as VaultRow) : undefined;
}

/** Harvest snapshots of `vaults` with `timestamp >= since`, oldest first. */
export async function readVaultSnapshots(reads: Kysely<Projections>, vaults: string[], since: number): Promise<VaultSnapshotRow[]> {
  if (vaults.length === 0) return [];
  return reads
    .selectFrom("vaultSnapshot")
    .select(["vault", "timestamp", "totalAssets", "totalSupply", "gross", "fee"])
    .where("vault", "in", vaults.map((v) => v.toLowerCase()) as `0x${string}`[])
    .where("timestamp", ">=", since)
    .orderBy("vault")
    .orderBy("timestamp", "asc")
    .execute();
}

/** Per vault, the harvests with `timestamp >= since` folded into what its APR needs. */
export async function readVaultHarvestWindows(reads: Kysely<Projections>, vaults: string[], since: number): Promise<Map<string, HarvestWindow>> {
  if (vaults.length === 0) return new Map();
  const rows = await reads
    .selectFrom("vaultSnapshot")
    .select([
      "vault",
      sql<number>`count(*)::int`.as("count"),
      sql<number>`min(${sql.ref("timestamp")})`.as("firstAt"),
      sql<number>`max(${sql.ref("timestamp")})`.as("lastAt"),
      sql<bigint>`sum(${sql.ref("total_assets")})`.as("assetsSum"),
      sql<bigint>`sum(${sql.ref("gross")} - ${sql.ref("fee")})`.as("netSum"),
      sql<bigint>`(array_agg(${sql.ref("gross")} - ${sql.ref("fee")} order by ${sql.ref("timestamp")}))[1]`.as("firstNet"),
    ])
    .where("vault", "in", vaults.map((v) => v.toLowerCase()) as `0x${string}`[])
    .where("timestamp", ">=", since)
    .groupBy("vault")
    .execute();
  return new Map(
    rows.map((r) => [
      r.vault.toLowerCase(),
      { count: r.count, firstAt: r.firstAt, lastAt: r.lastAt, assetsSum: BigInt(r.assetsSum), netAfterFirst: BigInt(r.netSum) - BigInt(r.firstNet) },
    ]),
  );
}

export type VaultDayRow = { day: number; gross: bigint; fee: bigint; harvests: number };

/** Harvest income of `vault` per UTC day (day = floor(unix seconds / 86400)) with `day >= fromDay`. */
export async function readVaultDailyIncome(reads: Kysely<Projections>, vault: string, fromDay: number): Promise<VaultDayRow[]> {
  const day = sql<number>`(${sql.ref("timestamp")} / ${sql.lit(DAY_S)})`;
  const rows = await reads
    .selectFrom("vaultSnapshot")
    .select([
      day.as("day"),
      sql<bigint>`sum(${sql.ref("gross")})`.as("gross"),
      sql<bigint>`sum(${sql.ref("fee")})`.as("fee"),
      sql<number>`count(*)::int`.as("harvests"),
    ])
    .where("vault", "=", vault.toLowerCase() as `0x${string}`)
    .where("timestamp", ">=", fromDay * DAY_S)
    .groupBy(day)
    .orderBy(day)
    .execute();
  return rows.map((r) => ({ day: Number(r.day), gross: BigInt(r.gross), fee: BigInt(r.fee), harvests: r.harvests }));
}

/** The newest harvest of any vault (unix seconds), or null: the keeper's heartbeat. */
export async function readLastHarvestAt(reads: Kysely<Projections>): Promise<number | null> {
  const row = await reads
    .selectFrom("vaultSnapshot")
    .select(sql<number | null>`max(${sql.ref("timestamp")})`.as("last"))
    .executeTakeFirst();
  return row?.last ?? null;
}
