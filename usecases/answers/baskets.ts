// The public basket answers: listed baskets, one basket, its daily history and one owner's holding.
//
// The indexer keeps each basket's balances, supply and cumulative swap fees now, not their past, so:
// - fee APR is the average since the basket was made (cumulative fees at today's prices / age);
// - past share prices follow the weighted geometric mean of the tokens' prices (what a weighted pool
//   kept at its weights by arbitrage is worth), anchored at today's share price; fees are left out;
// - past supplies come from the activity log's mints and burns.
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import { formatUnits } from "viem";
import type { ServiceChainRead } from "../../adapters/chain/service-state.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { listedToken } from "../../adapters/chain/token-list.js";
import type { Projections } from "../../adapters/db/projections.js";
import { readBasket, readBasketHolding, readBaskets, readBasketSupplyChanges, type BasketRow } from "../../adapters/db/reads/baskets.js";
import { readClosesAt, readDailyCloses, readFirstPrices } from "../../adapters/db/reads/prices.js";
import { readTokensByAddress } from "../../adapters/db/reads/tokens.js";
import { amountPair, checksum, isoTime, priceUsd, units } from "../../domain/format.js";
import { USDG_DECIMALS, DAY_S, ONE_X18 } from "../../domain/price.js";
import { round } from "../../domain/vault-figures.js";
import type { Basket, BasketAccount, BasketHistory } from "../../contract/baskets.js";
import { sameAddress } from "../../domain/address.js";

type Deps = { reads: Kysely<Projections>; deployments: Deployments };

const DAY = DAY_S;
const WEEK = 7 * DAY;
const ONE = ONE_X18;
const BASKET_DECIMALS = 18;

export const HISTORY_METHOD =
  "Share price per day = today's share price × the weighted geometric mean of each token's price ratio (its last hourly close of that day / its price now), " +
  "weights from the pool: what a weighted pool kept at its weights by arbitrage is worth, fees left out. " +
  "TVL = that share price × the supply at the end of the day (today's supply less later mints, plus later burns).";

type TokenInfo = { address: string; symbol: string | null; decimals: number | null; verified: boolean; priceX18: bigint | null };

/** Symbol, decimals, verification and price now of each token (USDG at 1, from the deployments file). */
async function tokenInfos({ reads, deployments }: Deps, addresses: string[]): Promise<Map<string, TokenInfo>> {
  const lower = [...new Set(addresses.map((a) => a.toLowerCase()))];
  const charted = await readTokensByAddress(reads, lower);
  const usdg = deployments.contracts.usdg?.toLowerCase();
  return new Map(
    lower.map((a) => {
      const row = charted.get(a);
      const deployed = deployments.tokens.find((t) => t.address.toLowerCase() === a);
      const isUsdg = a === usdg;
      const info: TokenInfo = {
        address: a,
        symbol: row?.symbol ?? deployed?.symbol ?? null,
        decimals: row?.decimals ?? deployed?.decimals ?? (isUsdg ? USDG_DECIMALS : null),
        verified: row?.verified ?? listedToken(a) !== undefined,
        priceX18: isUsdg ? ONE : row && row.priceX18 > 0n ? row.priceX18 : null,
      };
      return [a, info];
    }),
  );
}

const weightOf = (b: BasketRow, i: number) => Number(formatUnits(BigInt(b.weights[i] ?? "0"), 18));
const valueUsd = (amount: bigint, t: TokenInfo): number | null =>
  t.priceX18 === null || t.decimals === null ? null : Number(formatUnits((amount * t.priceX18) / ONE, t.decimals));

function sumOrNull(xs: (number | null)[]): number | null {
  return xs.some((x) => x === null) ? null : xs.reduce<number>((s, x) => s + x!, 0);
}

/** Value of the pool's balances now and of its cumulative fees, at prices now. */
function poolValues(b: BasketRow, infos: Map<string, TokenInfo>) {
  const tokens = b.tokens.map((a) => infos.get(a.toLowerCase())!);
  const tvlUsd = sumOrNull(tokens.map((t, i) => valueUsd(BigInt(b.balances[i] ?? "0"), t)));
  const feesUsd = sumOrNull(tokens.map((t, i) => valueUsd(BigInt(b.swapFeesCollected[i] ?? "0"), t))) ?? 0;
  const supply = Number(formatUnits(b.totalSupply, BASKET_DECIMALS));
  const sharePriceUsd = tvlUsd === null || supply === 0 ? null : tvlUsd / supply;
  return { tokens, tvlUsd, feesUsd, sharePriceUsd };
}

/** The weighted geometric mean of price ratios (then / now), or null when a price is missing. */
function weightedRatio(b: BasketRow, infos: Map<string, TokenInfo>, priceThen: (token: string) => bigint | null): number | null {
  let log = 0;
  for (const [i, a] of b.tokens.entries()) {
    const now = infos.get(a.toLowerCase())?.priceX18 ?? null;
    const then = priceThen(a.toLowerCase());
    if (now === null || then === null || now === 0n || then === 0n) return null;
    log += weightOf(b, i) * Math.log(priceUsd(then) / priceUsd(now));
  }
  return Math.exp(log);
}

type Change7d = { pct: number | null; since: number | null };

/** Prices of `tokens` 7 days before `now` (or their first known price when history is shorter). */
async function pricesWeekAgo({ reads, deployments }: Deps, tokens: string[], now: number) {
  const usdg = deployments.contracts.usdg?.toLowerCase();
  const charted = [...new Set(tokens.map((t) => t.toLowerCase()))].filter((t) => t !== usdg);
  const at = now - WEEK;
  const [closes, firsts] = await Promise.all([readClosesAt(reads, charted, at), readFirstPrices(reads, charted)]);
  return (token: string): { price: bigint; at: number } | null => {
    if (token === usdg) return { price: ONE, at };
    const c = closes.get(token);
    if (c) return { price: c.close, at };
    const f = firsts.get(token);
    return f ? { price: f.open, at: Math.max(at, f.start) } : null;
  };
}

function change7d(b: BasketRow, infos: Map<string, TokenInfo>, weekAgo: (token: string) => { price: bigint; at: number } | null): Change7d {
  const ratio = weightedRatio(b, infos, (t) => weekAgo(t)?.price ?? null);
  if (ratio === null) return { pct: null, since: null };
  const since = Math.max(...b.tokens.map((t) => weekAgo(t.toLowerCase())?.at ?? 0));
  return { pct: round((1 / ratio - 1) * 100, 4), since };
}

function basketAnswer(b: BasketRow, infos: Map<string, TokenInfo>, admin: string | null, change: Change7d, now: number): z.infer<typeof Basket> {
  const { tokens, tvlUsd, feesUsd, sharePriceUsd } = poolValues(b, infos);
  const age = now - b.createdAt;
  return {
    address: checksum(b.address),
    name: b.name,
    symbol: b.symbol,
    listed: b.listed,
    maker: checksum(b.maker),
    madeByService: admin === null ? null : sameAddress(admin, b.maker),
    sellOnly: b.sellOnly,
    paused: b.paused,
    decimals: 18,
    swapFeePct: Number(formatUnits(b.swapFeePercentage * 100n, 18)),
    tokens: tokens.map((t, i) => {
      const balance = BigInt(b.balances[i] ?? "0");
      return {
        address: checksum(t.address),
        symbol: t.symbol,
        decimals: t.decimals,
        verified: t.verified,
        weightPct: round(weightOf(b, i) * 100, 6),
        balance: t.decimals === null ? null : units(balance, t.decimals),
        balanceUnits: balance.toString(),
        priceUsd: t.priceX18 === null ? null : priceUsd(t.priceX18),
        valueUsd: valueUsd(balance, t),
      };
    }),
    ...amountPair("totalSupply", b.totalSupply, BASKET_DECIMALS),
    tvlUsd,
    sharePriceUsd,
    feeAprPct: tvlUsd && age >= 3600 ? round((feesUsd / tvlUsd) * ((365 * DAY) / age) * 100, 4) : null,
    change7dPct: change.pct,
    change7dSince: change.since === null ? null : isoTime(change.since),
    createdAt: isoTime(b.createdAt),
  };
}

const adminOf = (chain: ServiceChainRead) => (chain.ok ? chain.state.serviceAdmin : (chain.lastGood?.serviceAdmin ?? null));

/** The listed (verified) baskets. */
export async function basketListAnswer(deps: Deps, chain: ServiceChainRead, now: number): Promise<z.infer<typeof Basket>[]> {
  const baskets = await readBaskets(deps.reads, { listedOnly: true });
  const all = baskets.flatMap((b) => b.tokens);
  const [infos, weekAgo] = await Promise.all([tokenInfos(deps, all), pricesWeekAgo(deps, all, now)]);
  return baskets.map((b) => basketAnswer(b, infos, adminOf(chain), change7d(b, infos, weekAgo), now));
}

/** One basket (listed or not), or undefined when `pool` is not a basket. */
export async function basketDetailAnswer(deps: Deps, chain: ServiceChainRead, pool: string, now: number): Promise<z.infer<typeof Basket> | undefined> {
  const b = await readBasket(deps.reads, pool);
  if (!b) return undefined;
  const [infos, weekAgo] = await Promise.all([tokenInfos(deps, b.tokens), pricesWeekAgo(deps, b.tokens, now)]);
  return basketAnswer(b, infos, adminOf(chain), change7d(b, infos, weekAgo), now);
}

/** Share price and TVL per UTC day over the last `days` days, or undefined when not a basket. */
export async function basketHistoryAnswer(deps: Deps, pool: string, days: number, now: number): Promise<z.infer<typeof BasketHistory> | undefined> {
  const b = await readBasket(deps.reads, pool);
  if (!b) return undefined;
  const today = Math.floor(now / DAY);
  const firstDay = Math.max(today - days + 1, Math.floor(b.createdAt / DAY));
  const usdg = deps.deployments.contracts.usdg?.toLowerCase();
  const charted = b.tokens.map((t) => t.toLowerCase()).filter((t) => t !== usdg);
  const [infos, daily, before, supplyChanges] = await Promise.all([
    tokenInfos(deps, b.tokens),
    readDailyCloses(deps.reads, charted, firstDay, today),
    readClosesAt(deps.reads, charted, firstDay * DAY - 1),
    readBasketSupplyChanges(deps.reads, b.address, firstDay * DAY),
  ]);
  const { sharePriceUsd } = poolValues(b, infos);

  // Each token's close per day, carried forward over days without a trade.
  const closeOn = new Map<string, Map<number, bigint>>();
  for (const t of charted) {
    const byDay = new Map(daily.filter((d) => d.token === t).map((d) => [d.day, d.close]));
    let last = before.get(t)?.close;
    const series = new Map<number, bigint>();
    for (let d = firstDay; d <= today; d++) {
      last = byDay.get(d) ?? last;
      if (last !== undefined) series.set(d, last);
    }
    closeOn.set(t, series);
  }

  const points: z.infer<typeof BasketHistory>["points"] = [];
  for (let d = firstDay; d <= today; d++) {
    const at = d === today ? now : (d + 1) * DAY - 1;
    // Today's point is the basket as it is now; the chain's clock can run seconds ahead of ours (a block
    // a second, or faster under bursts), so its newest mints must not count as "after now".
    let supply = b.totalSupply;
    if (d !== today) for (const c of supplyChanges) if (c.timestamp > at) supply -= c.delta;
    const ratio = d === today ? 1 : weightedRatio(b, infos, (t) => (t === usdg ? ONE : (closeOn.get(t)?.get(d) ?? null)));
    const price = ratio === null || sharePriceUsd === null ? null : sharePriceUsd * ratio;
    points.push({
      day: isoTime(d * DAY).slice(0, 10),
      time: isoTime(at),
      sharePriceUsd: price,
      tvlUsd: price === null ? null : price * Number(formatUnits(supply, BASKET_DECIMALS)),
      ...amountPair("totalSupply", supply, BASKET_DECIMALS),
    });
  }
  return { basket: checksum(b.address), days, method: HISTORY_METHOD, points };
}

/** One owner's holding of a basket and the fees it earned, or undefined when not a basket. */
export async function basketAccountAnswer(deps: Deps, pool: string, owner: string, now: number): Promise<z.infer<typeof BasketAccount> | undefined> {
  const b = await readBasket(deps.reads, pool);
  if (!b) return undefined;
  const [infos, holding] = await Promise.all([tokenInfos(deps, b.tokens), readBasketHolding(deps.reads, b.address, owner)]);
  const { tokens, feesUsd } = poolValues(b, infos);
  const { balance, firstInflowAt } = holding;
  const share = b.totalSupply === 0n ? 0 : Number((balance * 10n ** 12n) / b.totalSupply) / 1e12;
  const parts = tokens.map((t, i) => {
    const amount = b.totalSupply === 0n ? 0n : (BigInt(b.balances[i] ?? "0") * balance) / b.totalSupply;
    return {
      address: checksum(t.address),
      symbol: t.symbol,
      amount: t.decimals === null ? null : units(amount, t.decimals),
      amountUnits: amount.toString(),
      valueUsd: valueUsd(amount, t),
    };
  });
  const age = Math.max(now - b.createdAt, 1);
  const held = firstInflowAt === null ? 0 : Math.min(Math.max(now - firstInflowAt, 0), age);
  return {
    basket: checksum(b.address),
    owner: checksum(owner),
    ...amountPair("balance", balance, BASKET_DECIMALS),
    shareOfPoolPct: round(share * 100, 8),
    valueUsd: sumOrNull(parts.map((p) => p.valueUsd)),
    tokens: parts,
    holdingSince: firstInflowAt === null ? null : isoTime(firstInflowAt),
    feesEarnedUsd: balance === 0n ? 0 : round(share * feesUsd * (held / age), 6),
  };
}
