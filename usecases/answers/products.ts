// The products answer: vault counts from the projections, the strategy contracts' fees, pause flags
// and ladder markets from the chain (cached reads), basket counts and the zap's readiness.
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import type { Address } from "viem";
import type { ServiceChainRead, ServiceChainState, StrategyContractState } from "../../adapters/chain/service-state.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import type { Projections } from "../../adapters/db/projections.js";
import { countListedBaskets } from "../../adapters/db/reads/baskets.js";
import { readTokensByAddress } from "../../adapters/db/reads/tokens.js";
import { readAgentVaults, readLastHarvestAt } from "../../adapters/db/reads/vaults.js";
import { checksum } from "../../domain/format.js";
import { vaultStatus } from "../../domain/vault-figures.js";
import { VAULT_FAMILIES, type Products } from "../../contract/products.js";
import { sameAddress } from "../../domain/address.js";

type Deps = { reads: Kysely<Projections>; deployments: Deployments };
type P = z.infer<typeof Products>;

/** The keeper counts as healthy when some vault was harvested this recently (it harvests every 10 minutes). */
export const KEEPER_HEARTBEAT_SECONDS = 30 * 60;

const pct = (bps: number) => `${Number((bps / 100).toFixed(2))}%`;
const RPC_DOWN = "the chain RPC is unreachable";

export async function productsAnswer({ reads, deployments }: Deps, chain: ServiceChainRead, now: Date): Promise<P> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const [vaultRows, basketCount, lastHarvestAt] = await Promise.all([readAgentVaults(reads), countListedBaskets(reads), readLastHarvestAt(reads)]);
  const state = chain.ok ? chain.state : null;
  const known = chain.ok ? chain.state : chain.lastGood;
  const keeperHealthy = lastHarvestAt !== null && nowSeconds - lastHarvestAt <= KEEPER_HEARTBEAT_SECONDS;

  const ladderState = known?.ladderStrategy ?? null;
  const listedMarkets = ladderState?.markets.filter((m) => m.listed) ?? [];
  const marketTokens = await readTokensByAddress(
    reads,
    listedMarkets.map((m) => m.token),
  );

  // Ladder strategies appear only while deployed and listed (a market listed on the contract).
  let ladderStrategies: P["ladderStrategies"];
  if (ladderState && listedMarkets.length > 0) {
    const paused = state?.ladderStrategy?.paused ?? null;
    const markets = listedMarkets.flatMap((m) => {
      const t = marketTokens.get(m.token.toLowerCase());
      return t?.pool && t.quoteIs0 !== null
        ? [{ token: checksum(m.token), symbol: t.symbol, decimals: t.decimals, pool: checksum(t.pool), quoteIs0: t.quoteIs0, pausable: m.pausable }]
        : [];
    });
    const open = listedMarkets.filter((m) => m.open);
    const closed = listedMarkets.filter((m) => !m.open).map((m) => marketTokens.get(m.token.toLowerCase())?.symbol ?? checksum(m.token));
    const available = chain.ok && paused === false && open.length > 0 && keeperHealthy;
    ladderStrategies = {
      available,
      ladder: checksum(ladderState.address),
      feeBps: ladderState.feeBps,
      maxLegs: ladderState.maxLegs,
      paused,
      markets,
      marketsComplete: chain.ok && markets.length === listedMarkets.length,
      keeperHealthy,
      note:
        `Ladder strategies are not the limit-order ladder: 1-${ladderState.maxLegs} parts on one market, each with its own buy line and sell line, ` +
        "opened together after one approval. Pausable markets keep market hours. " +
        (chain.ok ? (closed.length ? `Closed now: ${closed.join(", ")}.` : "Every listed market is open now.") : "Which markets are open is unknown now."),
      reason: !chain.ok
        ? `Cannot read the ladder strategy now: ${RPC_DOWN}`
        : paused
          ? "The ladder strategy is paused"
          : open.length === 0
            ? "No ladder-strategy market is open now"
            : !keeperHealthy
              ? "The keeper has not acted in the last 30 minutes, so parts would not trade"
              : `Open on ${open.length} of ${listedMarkets.length} markets; ${pct(ladderState.feeBps)} of each part's trade`,
    };
  }
  const hook = strategyPart(deployments.contracts.limitOrderHook, state?.limitOrderHook, known?.limitOrderHook, "limit-order hook", chain);
  const grid = strategyPart(deployments.contracts.gridStrategy, state?.gridStrategy, known?.gridStrategy, "grid strategy", chain);
  return {
    vaults: vaultsPart(vaultRows),
    limitOrders: {
      available: hook.available,
      hook: hook.address,
      feeBps: hook.feeBps,
      paused: hook.paused,
      reason: hook.reason ?? `Limit orders and ladders of 2-20 orders on any token with a USDG market; the hook takes ${pct(hook.feeBps!)} of each fill`,
    },
    grids: {
      available: grid.available,
      strategy: grid.address,
      feeBps: grid.feeBps,
      paused: grid.paused,
      reason: grid.reason ?? `A repeating buy line and sell line on any token with a USDG market; ${pct(grid.feeBps!)} of each grid trade`,
    },
    ...(ladderStrategies ? { ladderStrategies } : {}),
    baskets: basketsPart(deployments, basketCount, state, chain),
    asOf: now.toISOString(),
  };
}

function vaultsPart(rows: Awaited<ReturnType<typeof readAgentVaults>>): P["vaults"] {
  const families = Object.fromEntries(VAULT_FAMILIES.map((f) => [f, { count: 0, open: 0 }])) as P["vaults"]["families"];
  for (const row of rows) {
    const family = families[row.family as keyof typeof families];
    if (!family) continue;
    family.count++;
    if (vaultStatus(row).status === "open") family.open++;
  }
  const count = rows.length;
  const open = VAULT_FAMILIES.reduce((n, f) => n + families[f].open, 0);
  const unavailable = VAULT_FAMILIES.filter((f) => families[f].open === 0);
  const reason =
    count === 0
      ? "No vault is offered to agents now"
      : open === 0
        ? "No vault takes deposits now: every vault is full, closed or paused (withdrawals stay open)"
        : `${open} of ${count} vaults take deposits now${unavailable.length ? `; none open in: ${unavailable.join(", ")}` : ""}`;
  return { available: open > 0, count, open, families, unavailable, reason };
}

type StrategyPart = { available: boolean; address: Address | null; feeBps: number | null; paused: boolean | null; reason: string | undefined };

/** A strategy contract's part: its address, fee and pause flag, or why they are unknown. */
function strategyPart(
  address: Address | undefined,
  fresh: StrategyContractState | null | undefined,
  known: StrategyContractState | null | undefined,
  name: string,
  chain: ServiceChainRead,
): StrategyPart {
  if (!address) return { available: false, address: null, feeBps: null, paused: null, reason: `The ${name} is not deployed on this chain` };
  if (!chain.ok || !fresh) {
    // The fee is immutable: the last good read still holds. The pause flag does not.
    return {
      available: false,
      address: checksum(address),
      feeBps: known?.feeBps ?? null,
      paused: null,
      reason: `Cannot read the ${name} now: ${chain.ok ? "no state" : chain.error}`,
    };
  }
  if (fresh.paused) return { available: false, address: checksum(address), feeBps: fresh.feeBps, paused: true, reason: `The ${name} is paused` };
  return { available: true, address: checksum(address), feeBps: fresh.feeBps, paused: false, reason: undefined };
}

function basketsPart(deployments: Deployments, count: number, state: ServiceChainState | null, chain: ServiceChainRead): P["baskets"] {
  const zap = deployments.contracts.basketZap;
  const expected = deployments.contracts.aggregator;
  let zapAvailable = false;
  let zapReason: string;
  if (!zap) zapReason = "the basket zap is not deployed on this chain";
  else if (!chain.ok || !state?.basketZap) zapReason = `the basket zap cannot be read now: ${chain.ok ? "no state" : chain.error}`;
  else if (expected && !sameAddress(state.basketZap.aggregator, expected)) zapReason = "the basket zap's aggregator changed: retry shortly";
  else {
    zapAvailable = true;
    zapReason = "the zap quotes buys and sells through the aggregator";
  }
  const available = count > 0 && zapAvailable;
  const reason =
    count === 0 ? `No listed basket now; ${zapReason}` : available ? `${count} listed baskets; ${zapReason}` : `${count} listed baskets, but ${zapReason}`;
  return { available, count, zapAvailable, reason };
}
