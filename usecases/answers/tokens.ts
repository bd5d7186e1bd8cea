// The public token list: every charted token with its price, 24-hour volume, liquidity, category,
// verification and which of its markets are open.
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import { formatUnits } from "viem";
import type { ServiceChainRead } from "../../adapters/chain/service-state.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Projections } from "../../adapters/db/projections.js";
import { readTokenMarkets, type TokenMarketRow } from "../../adapters/db/reads/tokens.js";
import { checksum, isoTime, priceUsd } from "../../domain/format.js";
import { USDG_DECIMALS } from "../../domain/price.js";
import { round } from "../../domain/vault-figures.js";
import { tokenListCategory, type TokenListing, type TokensQuery } from "../../contract/tokens.js";

type Deps = { reads: Kysely<Projections>; deployments: Deployments };
type Listing = z.infer<typeof TokenListing>;
type Query = z.infer<typeof TokensQuery>;

export const unverifiedWarning = (symbol: string) =>
  `Unverified: the symbol ${JSON.stringify(symbol)} is its own, not checked by the service; check the address.`;

const usd = (usdg: bigint) => Number(formatUnits(usdg, USDG_DECIMALS));

export async function tokenListAnswer({ reads, deployments }: Deps, chain: ServiceChainRead, query: Query, now: number): Promise<Listing[]> {
  const rows = await readTokenMarkets(reads, now);
  const state = chain.ok ? chain.state : null;
  const known = chain.ok ? chain.state : chain.lastGood;
  const hookOpen = !!deployments.contracts.limitOrderHook && known?.limitOrderHook?.paused !== true;
  const gridOpen = !!deployments.contracts.gridStrategy && known?.gridStrategy?.paused !== true;
  const ladder = deployments.contracts.ladderStrategy ? state?.ladderStrategy : null;
  const ladderMarkets = new Map((ladder?.markets ?? []).map((m) => [m.token.toLowerCase(), m]));

  const ladderOpen = (token: string): boolean | null => {
    if (!deployments.contracts.ladderStrategy) return false;
    if (!ladder) return null;
    const m = ladderMarkets.get(token.toLowerCase());
    return !!m && m.listed && m.open && !ladder.paused;
  };

  const listing = (r: TokenMarketRow): Listing => {
    const category = tokenListCategory(r.category);
    const price = priceUsd(r.priceX18);
    return {
      address: checksum(r.address),
      symbol: r.symbol,
      name: r.name,
      decimals: r.decimals,
      category,
      verified: r.verified,
      warning: r.verified ? null : unverifiedWarning(r.symbol),
      pool: checksum(r.pool!),
      priceUsd: price,
      change24hPct: r.price24hAgoX18 && r.price24hAgoX18 > 0n ? round((price / priceUsd(r.price24hAgoX18) - 1) * 100, 4) : null,
      volume24hUsd: usd(r.volume24hUsdg),
      liquidityUsd: usd(2n * r.reserveUsdg),
      swaps: r.swaps,
      markets: { limitOrders: hookOpen, grids: gridOpen, ladderStrategies: ladderOpen(r.address) },
      updatedAt: isoTime(r.updatedAt),
    };
  };

  const q = query.q?.toLowerCase();
  const matches = (r: TokenMarketRow) =>
    (!query.category || tokenListCategory(r.category) === query.category) &&
    (!q || (q.startsWith("0x") ? r.address.toLowerCase().startsWith(q) : r.symbol.toLowerCase().includes(q) || r.name.toLowerCase().includes(q)));

  const bySort: Record<Query["sort"], (a: Listing, b: Listing) => number> = {
    volume: (a, b) => b.volume24hUsd - a.volume24hUsd || b.swaps - a.swaps,
    price: (a, b) => b.priceUsd - a.priceUsd,
    liquidity: (a, b) => b.liquidityUsd - a.liquidityUsd,
    symbol: (a, b) => a.symbol.localeCompare(b.symbol, "en", { sensitivity: "base" }),
  };
  return rows
    .filter((r) => r.pool !== null && matches(r))
    .map(listing)
    .sort((a, b) => bySort[query.sort](a, b) || a.address.localeCompare(b.address));
}
