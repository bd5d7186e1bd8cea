// The vault answers, built from the projections and the deployments file: the AgentVault list, one
// vault's detail, its pool's prices and its earnings.
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import { formatUnits, zeroAddress } from "viem";
import type { DeployedVault, Deployments } from "../../adapters/chain/deployments.js";
import type { Projections } from "../../adapters/db/projections.js";
import { readCandle10mBefore, readCandles10m, readClosesAt, readDailyCloses } from "../../adapters/db/reads/prices.js";
import {
  readAgentVault,
  readAgentVaults,
  readVaultDailyIncome,
  readVaultHarvestWindows,
  readVaultSnapshots,
  type VaultRow,
} from "../../adapters/db/reads/vaults.js";
import { fillCandles } from "../../domain/candles.js";
import { amountPair, checksum, isoTime, priceUsd } from "../../domain/format.js";
import { USDG_DECIMALS, DAY_S } from "../../domain/price.js";
import {
  aprFromWindow,
  assetUsd,
  harvestWindow,
  isCapped,
  round,
  shareDecimals,
  sharePrice,
  vaultRoom,
  vaultStatus,
  withdrawalModes,
  type HarvestWindow,
  type VaultFamily,
} from "../../domain/vault-figures.js";
import type { AgentVault, AgentVaultDetail, VaultToken, VaultEarnings, VaultPrices } from "../../contract/vaults.js";
import { sameAddress } from "../../domain/address.js";

type Deps = { reads: Kysely<Projections>; deployments: Deployments };

const DAY = DAY_S;
const WINDOW = 7 * DAY;
const STEP = 600;
/** Days of the earnings series. */
export const EARNINGS_DAYS = 90;

const FAMILIES: readonly VaultFamily[] = ["merged", "up", "stock-token"];
const familyOf = (family: string): VaultFamily => FAMILIES.find((f) => f === family) ?? "merged";

/** USDG as a token reference, from the deployments file. */
export function usdgRef(deployments: Deployments): z.infer<typeof VaultToken> {
  const address = deployments.contracts.usdg ?? deployments.tokens.find((x) => x.symbol === "USDG")?.address;
  return { address: checksum(address ?? zeroAddress), symbol: "USDG", decimals: USDG_DECIMALS };
}

function tokenRef(row: VaultRow, deployed: Deployments): z.infer<typeof VaultToken> {
  const fromList = deployed.tokens.find((t) => sameAddress(t.address, row.token));
  return { address: checksum(row.token), symbol: row.tokenSymbol ?? fromList?.symbol ?? "?", decimals: row.tokenDecimals ?? fromList?.decimals ?? 18 };
}

function deployedVault(deployments: Deployments, address: string): DeployedVault | undefined {
  return deployments.vaults.find((v) => sameAddress(v.address, address));
}

const orNull = (a: string | undefined) => (a ? checksum(a) : null);

/** The AgentVault of a projection row, with the APR of its harvests over the last 7 days. */
export function agentVault(row: VaultRow, deployments: Deployments, harvests: HarvestWindow | undefined): z.infer<typeof AgentVault> {
  const family = familyOf(row.family);
  const deployed = deployedVault(deployments, row.address);
  const token = tokenRef(row, deployments);
  const asset = family === "stock-token" ? token : usdgRef(deployments);
  const price = row.tokenPriceX18 && row.tokenPriceX18 > 0n ? row.tokenPriceX18 : null;
  const { status, reason } = vaultStatus(row);
  const room = vaultRoom(row);
  const { aprPct, days } = aprFromWindow(harvests);
  const perShare = sharePrice(row, asset.decimals);
  const assetPriceUsd = family === "stock-token" ? (price ? priceUsd(price) : null) : 1;
  const hasRange = family !== "stock-token" && (row.rangeLowerX18 > 0n || row.rangeUpperX18 > 0n);
  const capped = isCapped(row.depositCap);
  return {
    address: checksum(row.address),
    name: deployed?.name ?? `${token.symbol} vault`,
    family,
    status,
    reason,
    token,
    asset,
    shareDecimals: shareDecimals(family),
    tokenPriceUsd: price ? priceUsd(price) : null,
    aprPct: aprPct === null ? null : round(aprPct, 4),
    aprDays: days,
    ...amountPair("tvl", row.totalAssets, asset.decimals),
    tvlUsd: assetUsd(row.totalAssets, family, asset.decimals, price),
    sharePrice: perShare,
    sharePriceUsd: perShare === null || assetPriceUsd === null ? null : perShare * assetPriceUsd,
    range: hasRange
      ? {
          lowerUsd: priceUsd(row.rangeLowerX18),
          upperUsd: priceUsd(row.rangeUpperX18),
          inRange: price === null ? null : price >= row.rangeLowerX18 && price <= row.rangeUpperX18,
        }
      : null,
    limits: {
      ...amountPair("min", row.minDeposit, asset.decimals),
      cap: capped ? formatUnits(row.depositCap, asset.decimals) : null,
      capUnits: capped ? row.depositCap.toString() : null,
      room: room === null ? null : formatUnits(room, asset.decimals),
      roomUnits: room === null ? null : room.toString(),
      roomUsd: room === null ? null : assetUsd(room, family, asset.decimals, price),
      ...amountPair("pending", row.pendingAssets, asset.decimals),
    },
    withdrawals: withdrawalModes(family, deployed?.redeemQueue !== undefined),
    feeBps: row.feeBps,
    contracts: {
      vault: checksum(row.address),
      depositQueue: orNull(deployed?.depositQueue),
      withdrawalQueue: orNull(deployed?.withdrawalQueue),
      redeemQueue: orNull(deployed?.redeemQueue),
      router: orNull(deployed?.router),
    },
    // The figures also move with every trade of the token (a pair vault's TVL, every vault's USD figures).
    updatedAt: isoTime(Math.max(row.updatedAt, row.tokenUpdatedAt ?? 0)),
  };
}

/** Every vault agents may use, all families and statuses. */
export async function agentVaultList({ reads, deployments }: Deps, now: number): Promise<z.infer<typeof AgentVault>[]> {
  const rows = await readAgentVaults(reads);
  const windows = await readVaultHarvestWindows(
    reads,
    rows.map((r) => r.address),
    now - WINDOW,
  );
  const order = (f: string) => FAMILIES.indexOf(familyOf(f));
  return rows
    .map((row) => agentVault(row, deployments, windows.get(row.address.toLowerCase())))
    .sort((a, b) => order(a.family) - order(b.family) || a.name.localeCompare(b.name));
}

/** One vault agents may use, or undefined; merged vaults with 7 days of history. */
export async function agentVaultDetail({ reads, deployments }: Deps, address: string, now: number): Promise<z.infer<typeof AgentVaultDetail> | undefined> {
  const row = await readAgentVault(reads, address);
  if (!row) return undefined;
  const snapshots = await readVaultSnapshots(reads, [row.address], now - WINDOW);
  const vault = agentVault(row, deployments, harvestWindow(snapshots));
  const last = snapshots.at(-1);
  const income = { gross: row.harvestedGross, fee: row.harvestedFees, net: row.harvestedGross - row.harvestedFees };
  return {
    address: vault.address,
    family: vault.family,
    name: vault.name,
    status: vault.status,
    reason: vault.reason,
    harvested: {
      ...amountPair("gross", income.gross, vault.asset.decimals),
      ...amountPair("fee", income.fee, vault.asset.decimals),
      ...amountPair("net", income.net, vault.asset.decimals),
    },
    lastHarvestAt: last ? isoTime(last.timestamp) : null,
    history:
      vault.family === "merged"
        ? snapshots.map((s) => ({
            time: isoTime(s.timestamp),
            ...amountPair("totalAssets", s.totalAssets, vault.asset.decimals),
            sharePrice: sharePrice({ family: vault.family, totalAssets: s.totalAssets, totalSupply: s.totalSupply }, vault.asset.decimals),
            tvlUsd: Number(formatUnits(s.totalAssets, USDG_DECIMALS)),
          }))
        : null,
    agentVault: vault,
  };
}

/** The vault pool's price every 10 minutes over 7 days (empty buckets carry the last close), or undefined. */
export async function agentVaultPrices({ reads, deployments }: Deps, address: string, now: number): Promise<z.infer<typeof VaultPrices> | undefined> {
  const row = await readAgentVault(reads, address);
  if (!row) return undefined;
  const to = now - (now % STEP);
  const from = to - WINDOW + STEP;
  const [candles, carryIn] = await Promise.all([readCandles10m(reads, row.token, from, to), readCandle10mBefore(reads, row.token, from)]);
  const pool = deployments.tokens.find((t) => sameAddress(t.address, row.token))?.pool ?? null;
  const usd = (x: bigint) => priceUsd(x);
  return {
    vault: checksum(row.address),
    token: tokenRef(row, deployments),
    pool: pool ? checksum(pool) : null,
    stepSeconds: STEP,
    from: isoTime(from),
    to: isoTime(to),
    gaps: "carry-forward",
    points: fillCandles(candles, { from, to, step: STEP, carryIn }).map((c) => ({
      time: isoTime(c.start),
      open: usd(c.open),
      high: usd(c.high),
      low: usd(c.low),
      close: usd(c.close),
      volumeUsd: Number(formatUnits(c.volumeUsdg, USDG_DECIMALS)),
      trades: c.trades,
    })),
  };
}

const dayString = (day: number) => isoTime(day * DAY).slice(0, 10);

/** Earnings after fees per UTC day over the last 90 days, cumulative since the vault began, or undefined. */
export async function agentVaultEarnings({ reads, deployments }: Deps, address: string, now: number): Promise<z.infer<typeof VaultEarnings> | undefined> {
  const row = await readAgentVault(reads, address);
  if (!row) return undefined;
  const family = familyOf(row.family);
  const asset = family === "stock-token" ? tokenRef(row, deployments) : usdgRef(deployments);
  const today = Math.floor(now / DAY);
  const fromDay = today - EARNINGS_DAYS + 1;
  const income = await readVaultDailyIncome(reads, row.address, 0);
  const firstDay = income[0]?.day ?? today;
  const start = Math.max(fromDay, firstDay);

  // Stock-token income is valued at the token's close of its day (carried forward over quiet days).
  const closes = new Map<number, bigint>();
  if (family === "stock-token") {
    const [daily, before] = await Promise.all([readDailyCloses(reads, [row.token], firstDay, today), readClosesAt(reads, [row.token], firstDay * DAY - 1)]);
    const byDay = new Map(daily.map((d) => [d.day, d.close]));
    let last = before.get(row.token.toLowerCase())?.close ?? daily[0]?.close ?? row.tokenPriceX18 ?? 0n;
    for (let d = firstDay; d <= today; d++) {
      last = byDay.get(d) ?? last;
      closes.set(d, last);
    }
  }
  const usd = (amount: bigint, day: number) => assetUsd(amount, family, asset.decimals, closes.get(day) ?? row.tokenPriceX18 ?? null) ?? 0;

  const byDay = new Map(income.map((d) => [d.day, d]));
  const days: z.infer<typeof VaultEarnings>["days"] = [];
  let cumulative = 0n;
  let cumulativeUsd = 0;
  let totalGross = 0n;
  let totalFee = 0n;
  for (let d = firstDay; d <= today; d++) {
    const entry = byDay.get(d) ?? { day: d, gross: 0n, fee: 0n, harvests: 0 };
    const net = entry.gross - entry.fee;
    const netUsd = usd(net, d);
    cumulative += net;
    cumulativeUsd = round(cumulativeUsd + netUsd, 6);
    totalGross += entry.gross;
    totalFee += entry.fee;
    if (d < start) continue;
    days.push({
      day: dayString(d),
      harvests: entry.harvests,
      ...amountPair("gross", entry.gross, asset.decimals),
      ...amountPair("fee", entry.fee, asset.decimals),
      ...amountPair("net", net, asset.decimals),
      grossUsd: usd(entry.gross, d),
      feeUsd: usd(entry.fee, d),
      netUsd,
      ...amountPair("cumulativeNet", cumulative, asset.decimals),
      cumulativeNetUsd: cumulativeUsd,
    });
  }
  return {
    vault: checksum(row.address),
    asset,
    feeBps: row.feeBps,
    from: dayString(start),
    to: dayString(today),
    days,
    totals: {
      ...amountPair("gross", totalGross, asset.decimals),
      ...amountPair("fee", totalFee, asset.decimals),
      ...amountPair("net", totalGross - totalFee, asset.decimals),
      netUsd: cumulativeUsd,
    },
  };
}
