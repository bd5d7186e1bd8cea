// The account answer (GET /v1/agent/accounts/{owner}), shaped from the rows of adapters/db/reads/accounts.ts:
// vault shares (valued as the vault converts them now: its books at the token's latest indexed price), deposit and withdrawal queue entries, limit
// orders, grids, ladder strategies with their parts, and basket tokens. Checksummed addresses,
// decimal-string amount pairs (`x` in whole units, `xUnits` in base units), USD prices as numbers, ISO
// 8601 times; typed by the answer's zod schemas (contract/accounts.ts).
//
// What is listed: every open item (shares above zero, pending queue entries, open or stopped
// orders, grids and ladders, basket balances above zero) and the items that ended (settled,
// refunded, cancelled or completed entries; closed orders, grids and ladders) in the last
// `closedDays` days (default 7), newest first. An owner with nothing has empty lists.
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import { formatUnits, zeroAddress } from "viem";
import type { Deployments, VaultFamily } from "../../adapters/chain/deployments.js";
import type { Projections } from "../../adapters/db/projections.js";
import { type AccountRows, readAccountRows } from "../../adapters/db/reads/accounts.js";
import { checksum, isoTime, priceUsd, units } from "../../domain/format.js";
import { DAY_S, ONE_X18, tokenToUsdg, USDG_DECIMALS } from "../../domain/price.js";
import { convertToAssets, vaultTotalAssets } from "../../domain/vault-figures.js";
import type * as schema from "../../contract/accounts.js";
import { DEFAULT_CLOSED_DAYS } from "../../contract/accounts.js";

type Hex = `0x${string}`;

export type Account = z.infer<typeof schema.Account>;
type TokenRef = z.infer<typeof schema.TokenRef>;
type VaultShares = z.infer<typeof schema.VaultShares>;
type DepositRequest = z.infer<typeof schema.DepositRequest>;
type WithdrawalRequest = z.infer<typeof schema.WithdrawalRequest>;
type LimitOrder = z.infer<typeof schema.LimitOrder>;
type Grid = z.infer<typeof schema.Grid>;
type LadderStrategy = z.infer<typeof schema.LadderStrategy>;
type BasketHolding = z.infer<typeof schema.BasketHolding>;

export type AccountAnswerParameters = {
  reads: Kysely<Projections>;
  deployments: Deployments;
  owner: string;
  now: Date;
  closedDays?: number;
};

const SHARE_DECIMALS = { merged: 12, up: 12, "stock-token": 18 } as Record<string, number>;
const BASKET_DECIMALS = 18;

const lower = (address: string) => address.toLowerCase() as Hex;
const unitsOf = (x: bigint | number | string | null | undefined): bigint => (x === null || x === undefined ? 0n : BigInt(x));
const big = (x: string | null | undefined): bigint => (x === null || x === undefined ? 0n : BigInt(x));
/**
 * A wire amount (base units as Postgres writes a numeric: a canonical decimal string) in whole units; its
 * base units go out as they came. The answer's objects take every key as a literal: amount pairs spread in
 * from helpers made each object a slow copy, then a slow stringify (a third of the shaping's CPU).
 */
const whole = (dec: string, decimals: number): string => units(BigInt(dec), decimals);

/**
 * Everything the owner holds (empty lists for an owner with nothing), and until when (ms) the same rows would be listed if read again with a later `now`:
 * an ended item leaves the answer once the cutoff (`now` minus `closedDays`, in whole seconds) passes
 * its `updatedAt`; nothing enters it by time alone (only by a write). Infinity when nothing ended.
 */
/**
 * The answer's own time (`asOf`): the server's clock, or the chain's where a figure's block (`valuedAt`, the
 * chain's clock) is later, as on a chain whose clock runs ahead: a valuation is never from after its answer.
 */
export const answerTime = (now: Date, valuedUntilMs: number) => new Date(Math.max(now.getTime(), valuedUntilMs)).toISOString();

type Rows = AccountRows;

/** What every section reads prices and token facts from: USDG's reference, a token's, and USD of an amount. */
type Pricing = {
  usdg: TokenRef;
  tokenRef: (address: string) => TokenRef;
  /** USD of `amount` base units of `address`, or null when its price is unknown. */
  usdOf: (address: string, amount: bigint) => number | null;
  market: (address: string) => { decimals: number; priceX18: bigint } | undefined;
};

function pricing(tokens: Rows["tokens"], usdgAddress: Hex | undefined): Pricing {
  const usdg: TokenRef = usdgAddress
    ? { address: checksum(usdgAddress), symbol: tokens.get(usdgAddress)?.symbol ?? "USDG", decimals: tokens.get(usdgAddress)?.decimals ?? USDG_DECIMALS }
    : { address: checksum(zeroAddress), symbol: "USDG", decimals: USDG_DECIMALS };
  const tokenRef = (address: string): TokenRef => {
    const row = tokens.get(lower(address));
    return { address: checksum(address), symbol: row?.symbol ?? null, decimals: row?.decimals ?? 18 };
  };
  const usdOf = (address: string, amount: bigint): number | null => {
    if (usdgAddress && lower(address) === usdgAddress) return Number(formatUnits(amount, usdg.decimals));
    const row = tokens.get(lower(address));
    if (!row || row.priceX18 === 0n) return null;
    return Number(formatUnits(tokenToUsdg(amount, row.decimals, row.priceX18), USDG_DECIMALS));
  };
  return { usdg, tokenRef, usdOf, market: (address) => tokens.get(lower(address)) };
}

function vaultShares(positions: Rows["vaults"], deployments: Deployments, { usdg, tokenRef, usdOf, market }: Pricing): VaultShares[] {
  const vaultNames = new Map(deployments.vaults.map((v) => [lower(v.address), v.name]));
  return positions.map((row) => {
    const family = row.family as VaultFamily;
    const asset = family === "stock-token" ? tokenRef(row.token) : usdg;
    // The shares as the vault would convert them now: its books at the token's latest indexed price.
    const prices = market(row.token);
    const books = { family, usdgAssets: big(row.usdgAssets), tokenAssets: big(row.tokenAssets), totalAssets: big(row.totalAssets) };
    const totalAssets = vaultTotalAssets(books, { decimals: prices?.decimals ?? null, priceX18: prices?.priceX18 ?? null });
    const supply = big(row.totalSupply);
    const shares = big(row.shares);
    const value = supply > 0n ? convertToAssets(shares, { family, totalAssets, totalSupply: supply }) : null;
    return {
      vault: checksum(row.vault),
      name: vaultNames.get(lower(row.vault)) ?? null,
      family,
      agent: row.agent,
      status: row.status,
      asset,
      shares: units(shares, SHARE_DECIMALS[family] ?? 18),
      sharesUnits: shares.toString(),
      value: value === null ? null : units(value, asset.decimals),
      valueUnits: value === null ? null : value.toString(),
      valueUsd: value === null ? null : usdOf(asset.address, value),
      valuedAt: isoTime(Math.max(row.vaultUpdatedAt, row.tokenUpdatedAt ?? 0)),
      updatedAt: isoTime(row.updatedAt),
    };
  });
}

type QueueRow = Rows["deposits"][number] | Rows["withdrawals"][number];

/** The fields a deposit and a withdrawal queue entry share, in the answer's order up to the amounts. */
function queueEntryHead<S extends string>(row: QueueRow) {
  return {
    vault: checksum(row.vault),
    queue: checksum(row.queue),
    id: row.id.toString(),
    state: row.state as S,
    owner: checksum(row.owner),
    receiver: checksum(row.receiver),
  };
}

function queueRequests(wire: Rows, deployments: Deployments, { usdg }: Pricing): { deposits: DepositRequest[]; withdrawals: WithdrawalRequest[] } {
  const shareDecimalsOf = (vault: string) => {
    const family = deployments.vaults.find((v) => lower(v.address) === lower(vault))?.family;
    return SHARE_DECIMALS[family ?? "merged"] ?? 12;
  };
  const deposits = wire.deposits.map((row) => ({
    ...queueEntryHead<DepositRequest["state"]>(row),
    assets: whole(row.assets, usdg.decimals),
    assetsUnits: row.assets,
    minShares: whole(row.minShares, shareDecimalsOf(row.vault)),
    minSharesUnits: row.minShares,
    shares: row.shares === null ? null : whole(row.shares, shareDecimalsOf(row.vault)),
    sharesUnits: row.shares,
    requestedAt: isoTime(row.requestedAt),
    updatedAt: isoTime(row.updatedAt),
  }));
  const withdrawals = wire.withdrawals.map((row) => ({
    ...queueEntryHead<WithdrawalRequest["state"]>(row),
    shares: whole(row.shares, shareDecimalsOf(row.vault)),
    sharesUnits: row.shares,
    minAssetsOut: whole(row.minAssetsOut, usdg.decimals),
    minAssetsOutUnits: row.minAssetsOut,
    assets: row.assets === null ? null : whole(row.assets, usdg.decimals),
    assetsUnits: row.assets,
    requestedAt: isoTime(row.requestedAt),
    updatedAt: isoTime(row.updatedAt),
  }));
  return { deposits, withdrawals };
}

function limitOrders(orderRows: Rows["orders"], { usdg, tokenRef }: Pricing): LimitOrder[] {
  return orderRows.map((row) => {
    const token = tokenRef(row.token);
    const [tokenIn, tokenOut] = row.sellToken ? [token, usdg] : [usdg, token];
    // owed/claimed are per pool token: token0 is USDG when the market's quoteIs0.
    const usdgIs0 = row.quoteIs0 ?? lower(usdg.address) < lower(row.token);
    const [owedUsdg, owedToken] = usdgIs0 ? [row.owed0, row.owed1] : [row.owed1, row.owed0];
    const [claimedUsdg, claimedToken] = usdgIs0 ? [row.claimed0, row.claimed1] : [row.claimed1, row.claimed0];
    return {
      id: row.id.toString(),
      token,
      side: row.sellToken ? "sell" : "buy",
      market: row.market,
      state: row.state as LimitOrder["state"],
      closeReason: (row.closeReason ?? null) as LimitOrder["closeReason"],
      price: priceUsd(BigInt(row.priceX18)),
      priceX18: row.priceX18.toString(),
      tokenIn,
      tokenOut,
      amountIn: whole(row.amountIn, tokenIn.decimals),
      amountInUnits: row.amountIn,
      filledIn: whole(row.filledIn, tokenIn.decimals),
      filledInUnits: row.filledIn,
      filledOut: whole(row.filledOut, tokenOut.decimals),
      filledOutUnits: row.filledOut,
      remaining: whole(row.remaining, tokenIn.decimals),
      remainingUnits: row.remaining,
      commission: whole(row.commission, tokenOut.decimals),
      commissionUnits: row.commission,
      owedUsdg: whole(owedUsdg, usdg.decimals),
      owedUsdgUnits: owedUsdg,
      owedToken: whole(owedToken, token.decimals),
      owedTokenUnits: owedToken,
      claimedUsdg: whole(claimedUsdg, usdg.decimals),
      claimedUsdgUnits: claimedUsdg,
      claimedToken: whole(claimedToken, token.decimals),
      claimedTokenUnits: claimedToken,
      createdAt: isoTime(row.createdAt),
      updatedAt: isoTime(row.updatedAt),
    };
  });
}

function grids(gridRows: Rows["grids"], { usdg, tokenRef }: Pricing): Grid[] {
  return gridRows.map((row) => ({
    id: row.id.toString(),
    token: tokenRef(row.token),
    buyPrice: priceUsd(BigInt(row.buyPriceX18)),
    buyPriceX18: row.buyPriceX18,
    sellPrice: priceUsd(BigInt(row.sellPriceX18)),
    sellPriceX18: row.sellPriceX18,
    amountUsdg: whole(row.amountUsdg, usdg.decimals),
    amountUsdgUnits: row.amountUsdg,
    repeat: row.repeat,
    state: row.state as Grid["state"],
    trades: row.trades,
    roundTrips: row.roundTrips,
    fees: whole(row.fees, usdg.decimals),
    feesUnits: row.fees,
    collected: whole(row.collected, usdg.decimals),
    collectedUnits: row.collected,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  }));
}

function ladderStrategies(ladderRows: Rows["ladders"], { usdg, tokenRef }: Pricing): LadderStrategy[] {
  return ladderRows.map((row) => {
    const token = tokenRef(row.token);
    const stake = row.sellFirst ? token : usdg;
    return {
      id: row.id.toString(),
      token,
      stake,
      sellFirst: row.sellFirst,
      repeat: row.repeat,
      repeatMask: row.repeatMask,
      oneWay: row.oneWay,
      state: row.state as LadderStrategy["state"],
      trades: row.trades,
      total: whole(row.total, stake.decimals),
      totalUnits: row.total,
      fees: whole(row.fees, usdg.decimals),
      feesUnits: row.fees,
      collectedToken: whole(row.collectedToken, token.decimals),
      collectedTokenUnits: row.collectedToken,
      collectedUsdg: whole(row.collectedUsdg, usdg.decimals),
      collectedUsdgUnits: row.collectedUsdg,
      parts: row.parts.map((leg) => ({
        part: leg.leg + 1,
        buyPrice: priceUsd(BigInt(leg.buyPriceX18)),
        buyPriceX18: leg.buyPriceX18,
        sellPrice: priceUsd(BigInt(leg.sellPriceX18)),
        sellPriceX18: leg.sellPriceX18,
        amount: whole(leg.amount, stake.decimals),
        amountUnits: leg.amount,
        trades: leg.trades,
        finished: leg.finished,
      })),
      createdAt: isoTime(row.createdAt),
      updatedAt: isoTime(row.updatedAt),
    };
  });
}

function basketHoldings(holdings: Rows["holdings"], { usdOf }: Pricing): BasketHolding[] {
  return holdings.map((row) => {
    const balance = unitsOf(row.balance);
    const supply = unitsOf(row.totalSupply);
    let poolUsd: number | null = 0;
    row.tokens.forEach((token, i) => {
      const usd = usdOf(token, unitsOf(row.balances[i] ?? "0"));
      poolUsd = poolUsd === null || usd === null ? null : poolUsd + usd;
    });
    const valueUsd = poolUsd === null || supply === 0n ? null : poolUsd * Number(formatUnits((balance * ONE_X18) / supply, 18));
    return {
      basket: checksum(row.basket),
      name: row.name,
      symbol: row.symbol,
      listed: row.listed,
      balance: units(balance, BASKET_DECIMALS),
      balanceUnits: balance.toString(),
      valueUsd,
      updatedAt: isoTime(row.updatedAt),
    };
  });
}

/** Until when (ms) the ended items stay listed: the oldest one leaves once the cutoff passes its `updatedAt`. */
function listedUntil(wire: Rows, closedDays: number): number {
  // Mirrors the statement's "ended" tests (not pending; closed) and its `updated_at >= cutoff`.
  const endedAt = [
    ...wire.deposits.filter((r) => r.state !== "pending"),
    ...wire.withdrawals.filter((r) => r.state !== "pending"),
    ...wire.orders.filter((r) => r.state === "closed"),
    ...wire.grids.filter((r) => r.state === "closed"),
    ...wire.ladders.filter((r) => r.state === "closed"),
  ].map((r) => Number(r.updatedAt));
  const oldestEnded = endedAt.length ? Math.min(...endedAt) : Infinity;
  return (oldestEnded + closedDays * DAY_S + 1) * 1000;
}

export type AccountShape = { account: Account; listedUntilMs: number; valuedUntilMs: number };

export async function accountAnswer(p: AccountAnswerParameters): Promise<AccountShape> {
  const owner = lower(p.owner);
  const closedDays = p.closedDays ?? DEFAULT_CLOSED_DAYS;
  const cutoff = Math.floor(p.now.getTime() / 1000) - closedDays * DAY_S;
  const usdgAddress = p.deployments.contracts.usdg ? lower(p.deployments.contracts.usdg) : undefined;
  const wire = await readAccountRows({ reads: p.reads, owner, cutoff });
  return shapeAccount(wire, { ...p, owner, closedDays, cutoff, usdgAddress });
}

/** The answer from the owner's rows (accountAnswer's work after the read). */
export function shapeAccount(
  wire: AccountRows,
  p: { owner: Hex; deployments: Deployments; now: Date; closedDays: number; cutoff: number; usdgAddress: Hex | undefined },
): AccountShape {
  const { owner, closedDays, cutoff, usdgAddress } = p;
  const prices = pricing(wire.tokens, usdgAddress);
  const vaults = vaultShares(wire.vaults, p.deployments, prices);
  const queues = queueRequests(wire, p.deployments, prices);
  const valuedUntilMs = Math.max(0, ...vaults.map((v) => (v.valuedAt ? Date.parse(v.valuedAt) : 0)));
  const account: Account = {
    owner: checksum(owner),
    asOf: answerTime(p.now, valuedUntilMs),
    closedSince: isoTime(cutoff),
    vaults,
    depositRequests: queues.deposits,
    withdrawalRequests: queues.withdrawals,
    limitOrders: limitOrders(wire.orders, prices),
    grids: grids(wire.grids, prices),
    ladderStrategies: ladderStrategies(wire.ladders, prices),
    baskets: basketHoldings(wire.holdings, prices),
  };
  return { account, listedUntilMs: listedUntil(wire, closedDays), valuedUntilMs };
}
