// The basket plan (POST /v1/agent/baskets/plan): check a basket before making it; nothing is stored.
// The tokens and weights with the anchor rule, each token's kind, trade-list status and liquidity class
// (two aggregator quotes per token, through the route budget), a look-back simulated over past hourly
// prices (market prices for a stock-only basket: its stock tokens' USDG markets; chain prices
// otherwise), the name check, listed baskets with the same tokens, the maker's readiness, `ready` and notes.
import { latestHourlyStart, readHourlyCloses, readListedBasketTokens, readTokenLabels } from "../adapters/db/reads/candles.js";
import type { z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import { getAddress, type Address, type PublicClient } from "viem";
import { basketRegistryAbi } from "../abis/index.js";
import { AggregatorUnavailableError, NoRouteError, type Aggregator } from "../adapters/chain/aggregator.js";
import { resolveToken } from "../adapters/chain/aggregator-tokens.js";
import type { Deployments } from "../adapters/chain/deployments.js";
import { listedToken } from "../adapters/chain/token-list.js";
import type { Projections } from "../adapters/db/projections.js";
import { sameAddress } from "../domain/address.js";
import { composeBasket } from "../domain/basket-plan/compose.js";
import { LARGE_BUY_USDG, liquidityClass, liquidityCostPct, SMALL_BUY_USDG, type LiquidityClass } from "../domain/basket-plan/liquidity.js";
import { simulateLookback } from "../domain/basket-plan/lookback.js";
import { nameProblem, suggestName, symbolProblem, type NameProblem } from "../domain/basket-plan/names.js";
import { x18ToPct } from "../domain/basket-plan/weights.js";
import { ApiError } from "../domain/errors.js";
import { isoTime, priceFloat } from "../domain/format.js";
import type { BasketLookback, BasketPlan, BasketPlanBody } from "../contract/basket-plan.js";
import { DAY_S, USDG_DECIMALS } from "../domain/price.js";

const HOUR = 3600;
const DAY = DAY_S;

export type BasketPlanDeps = {
  client?: PublicClient;
  deployments: Deployments;
  reads: Kysely<Projections>;
  /** The aggregator of the liquidity quotes; called only once the request passed its checks (its own errors come after theirs). */
  aggregator: () => Aggregator;
};

type PlanRequest = z.infer<typeof BasketPlanBody>;
type Lookback = z.infer<typeof BasketLookback>;

/** The plan of `body`; throws ApiError for a request the plan refuses (the route's 422 codes, UNAVAILABLE). */
export async function planBasketAnswer(deps: BasketPlanDeps, body: PlanRequest): Promise<z.infer<typeof BasketPlan>> {
  if (!deps.client) throw new ApiError("UNAVAILABLE", "The chain RPC is not configured");
  const client = deps.client;
  const { deployments } = deps;
  if (body.tokens.length < 1 || body.tokens.length > 8) throw new ApiError("TOKEN_COUNT", `A plan takes 1-8 tokens, not ${body.tokens.length}`);
  if (body.swapFeePct !== 0.3 && body.swapFeePct !== 1) throw new ApiError("MAKE_FEE", `swapFeePct must be 0.3 or 1, not ${body.swapFeePct}`);
  const usdg = deployments.contracts.usdg ? getAddress(deployments.contracts.usdg) : undefined;
  const weth = deployments.contracts.weth ? getAddress(deployments.contracts.weth) : undefined;
  const anchor = body.anchor === "WETH" ? weth : usdg;
  if (!anchor) throw new ApiError("UNAVAILABLE", `${body.anchor} is not deployed on this chain`);

  const resolved = await Promise.all(
    body.tokens.map(async (t, i) => {
      const field = `tokens[${i}].token`;
      const token = await resolveToken(client, deployments, t.token, field).catch((error: unknown) => {
        // The plan's codes: an address that is no token is unknown too.
        if (error instanceof ApiError && error.code === "NOT_A_TOKEN") throw new ApiError("UNKNOWN_TOKEN", error.message, error.details);
        throw error;
      });
      if (token.native) throw new ApiError("NATIVE_ETH_TOKEN", `${field}: native ETH cannot be a basket token: use WETH`, { token: t.token });
      return token;
    }),
  );
  const composition = composeBasket({
    tokens: resolved.map((r, i) => ({ address: r.address, weightPct: body.tokens[i]!.weightPct })),
    anchor,
    otherAnchor: body.anchor === "WETH" ? usdg : weth,
  });
  const addresses = composition.tokens.map((t) => getAddress(t.address));
  const symbols = addresses.map((a, i) => resolved[i]?.symbol ?? listedToken(a)?.symbol ?? (sameAddress(a, usdg ?? "") ? "USDG" : null));

  const aggregator = deps.aggregator();
  const [liquidity, lookback, charted, maker, sameTokens] = await Promise.all([
    Promise.all(addresses.map((a) => liquidityOf(aggregator, usdg, a))),
    lookbackOf(
      deps,
      addresses,
      composition.tokens.map((t) => t.weight),
      body,
    ),
    readTokenLabels(deps.reads),
    makerReadiness(client, deployments),
    sameTokenBaskets(deps, addresses),
  ]);

  const tokens = composition.tokens.map((t, i) => {
    const address = addresses[i]!;
    const listed = listedToken(address);
    const isUsdg = usdg !== undefined && sameAddress(address, usdg);
    return {
      address,
      symbol: listed?.symbol ?? symbols[i] ?? null,
      kind: (listed?.category ?? (isUsdg ? "utility" : "unclassified")) as "stock" | "crypto" | "utility" | "meme" | "unclassified",
      weightPct: x18ToPct(t.weight),
      onTradeList: listed !== undefined || isUsdg,
      anchor: i === composition.anchorIndex,
      added: t.added,
      liquidity: liquidity[i]!.liquidity,
      liquidityCostPct: liquidity[i]!.costPct,
    };
  });

  const name = await nameCheck(
    client,
    deployments,
    body,
    charted,
    tokens.map((t) => t.symbol ?? t.address.slice(0, 6)),
  );
  const notes: string[] = [];
  if (composition.anchorAdded) notes.push(`${body.anchor} was added at 10% as the anchor: a basket must hold USDG or WETH.`);
  if (tokens.length < 2) notes.push("A basket holds at least 2 tokens: add one before making it.");
  for (const t of tokens) {
    if (!t.onTradeList) notes.push(`${t.address} is not on the trade list: basket-make refuses it (NOT_ON_TRADE_LIST).`);
    if (t.liquidity === "no-market") notes.push(`${t.symbol ?? t.address} has no market the aggregator can route: it cannot be bought.`);
    else if (t.liquidity === "thin")
      notes.push(
        `${t.symbol ?? t.address} is thin (a 1,000 USDG buy pays ${t.liquidityCostPct}% more per token): large buys may be refused for price impact over 3%.`,
      );
  }
  if (sameTokens.length > 0)
    notes.push(`Listed baskets already hold exactly these tokens: ${sameTokens.map((b) => b.symbol).join(", ")}. Buying one costs no new basket.`);
  if (maker !== "ready") notes.push(`The basket maker is ${maker}.`);
  if (name.problem) notes.push(`${name.problem.code}: ${name.problem.message}.`);
  if (lookback.state === "unavailable") notes.push(`No look-back: ${lookback.reason}`);
  notes.push(
    "A made basket's name, symbol, tokens, weights and fee are permanent; it is unverified until the service lists it. The first deposit must be worth at least 25 USD.",
  );

  const ready = tokens.length >= 2 && tokens.every((t) => t.onTradeList && t.liquidity !== "no-market") && maker === "ready" && name.problem === null;
  return { tokens, anchor: body.anchor, swapFeePct: body.swapFeePct, lookback, name, sameTokens, maker, ready, notes };
}

/** Two buys through the aggregator (10 and 1,000 USDG); USDG itself is deep at no cost. */
async function liquidityOf(aggregator: Aggregator, usdg: Address | undefined, token: Address): Promise<{ liquidity: LiquidityClass; costPct: number | null }> {
  if (!usdg || sameAddress(token, usdg)) return { liquidity: "deep", costPct: 0 };
  try {
    const [small, large] = await Promise.all(
      [SMALL_BUY_USDG, LARGE_BUY_USDG].map((usd) => aggregator.quote({ tokenIn: usdg, tokenOut: token, amountIn: BigInt(usd) * 10n ** BigInt(USDG_DECIMALS) })),
    );
    const costPct = liquidityCostPct(small!.amountOut, large!.amountOut);
    return { liquidity: liquidityClass(costPct), costPct };
  } catch (error) {
    if (error instanceof NoRouteError) return { liquidity: "no-market", costPct: null };
    if (error instanceof AggregatorUnavailableError) throw new ApiError("UNAVAILABLE", `The swap aggregator is unavailable: ${error.message}`);
    throw error;
  }
}

/** Hourly closes of every token (USDG at 1) over `days`, carried forward, then the simulation. */
async function lookbackOf(deps: BasketPlanDeps, tokens: Address[], weights: bigint[], body: PlanRequest): Promise<Lookback> {
  const usdg = deps.deployments.contracts.usdg;
  const charted = tokens.filter((t) => !(usdg && sameAddress(t, usdg))).map((t) => t.toLowerCase() as `0x${string}`);
  if (tokens.length < 2) return { state: "unavailable", code: "TOKEN_COUNT", reason: "a basket of one token has no rebalancing to simulate" };
  if (charted.length === 0) return { state: "unavailable", code: "NO_CANDLES", reason: "the basket holds no priced token" };
  const to = await latestHourlyStart(deps.reads, charted);
  if (!to) return { state: "unavailable", code: "NO_CANDLES", reason: "no hourly prices are stored for these tokens yet" };
  const wantedFrom = to - body.days * DAY;
  const rows = await readHourlyCloses(deps.reads, charted, wantedFrom - DAY, to);
  const series = new Map<string, { start: number; close: number }[]>(charted.map((t) => [t, []]));
  for (const r of rows) series.get(r.token.toLowerCase())!.push({ start: r.start, close: priceFloat(r.close) });
  // The window starts once every token has a price.
  const firsts = charted.map((t) => series.get(t)![0]?.start);
  if (firsts.some((f) => f === undefined)) {
    const missing = charted.filter((t) => series.get(t)!.length === 0);
    return { state: "unavailable", code: "NO_CANDLES", reason: `no hourly prices for ${missing.map((m) => getAddress(m)).join(", ")} in the window` };
  }
  const from = Math.max(wantedFrom, ...(firsts as number[]));
  const times: number[] = [];
  for (let t = from - (from % HOUR); t <= to; t += HOUR) times.push(t);
  if (times.length < 2) return { state: "unavailable", code: "NO_CANDLES", reason: "less than two hours of prices for every token" };
  const cursor = new Map<string, number>(charted.map((t) => [t, 0]));
  const last = new Map<string, number>();
  const prices = times.map((time) =>
    tokens.map((token) => {
      if (usdg && sameAddress(token, usdg)) return 1;
      const key = token.toLowerCase();
      const s = series.get(key)!;
      let i = cursor.get(key)!;
      while (i < s.length && s[i]!.start <= time) last.set(key, s[i++]!.close);
      cursor.set(key, i);
      return last.get(key) ?? s[0]!.close;
    }),
  );
  const days = (times[times.length - 1]! - times[0]!) / DAY;
  const result = simulateLookback({
    weights: weights.map((w) => x18ToPct(w) / 100),
    times,
    prices,
    fee: body.swapFeePct / 100,
    windowSeconds: days > 14 ? 7 * DAY : DAY,
  });
  // A stock-only basket (USDG aside) is priced by its stocks' markets, as the spec's plan table says, and
  // only then is its growth shown.
  const stockOnly = tokens.every((t) => (usdg && sameAddress(t, usdg)) || listedToken(t)?.category === "stock");
  return {
    state: "ok",
    prices: stockOnly ? "market" : "chain",
    days: Math.round(days * 100) / 100,
    from: isoTime(times[0]!),
    to: isoTime(times[times.length - 1]!),
    growthPct: stockOnly ? result.growthPct : null,
    worstDropPct: result.worstDropPct,
    feesPer1kUsd: result.feesPer1kUsd,
    trades: result.trades,
    tvlUsd: result.endValueUsd,
    windows: result.windows.map((w) => ({ ...w, from: isoTime(w.from), to: isoTime(w.to) })),
  };
}

async function makerReadiness(client: PublicClient, deployments: Deployments): Promise<"ready" | "not-deployed" | "unknown"> {
  const maker = deployments.contracts.basketMaker;
  if (!maker) return "not-deployed";
  try {
    const code = await client.getCode({ address: getAddress(maker) });
    return code && code !== "0x" ? "ready" : "not-deployed";
  } catch {
    return "unknown";
  }
}

async function sameTokenBaskets(deps: BasketPlanDeps, tokens: Address[]) {
  const wanted = new Set(tokens.map((t) => t.toLowerCase()));
  const listed = await readListedBasketTokens(deps.reads);
  return listed
    .filter((b) => b.tokens.length === wanted.size && b.tokens.every((t) => wanted.has(t.toLowerCase())))
    .map((b) => ({ address: getAddress(b.address), name: b.name, symbol: b.symbol }));
}

async function nameCheck(
  client: PublicClient,
  deployments: Deployments,
  body: PlanRequest,
  charted: { symbol: string; name: string }[],
  symbols: string[],
): Promise<{ name: string | null; symbol: string | null; suggested: { name: string; symbol: string }; problem: NameProblem | null }> {
  const rules = { tokenNames: charted.map((t) => t.name), tokenSymbols: [...charted.map((t) => t.symbol), "USDG", "ETH"] };
  const registry = deployments.contracts.basketRegistry ? getAddress(deployments.contracts.basketRegistry) : undefined;
  const taken = (symbol: string) =>
    registry
      ? client.readContract({ address: registry, abi: basketRegistryAbi, functionName: "symbolTaken", args: [symbol] }).catch(() => false)
      : Promise.resolve(false);
  let problem: NameProblem | undefined;
  if (body.name !== undefined) problem = nameProblem(body.name, rules);
  if (!problem && body.symbol !== undefined) problem = symbolProblem(body.symbol, rules, await taken(body.symbol));
  const base = suggestName(symbols);
  let suggested = base;
  for (let n = 2; n < 20 && (symbolProblem(suggested.symbol, rules, await taken(suggested.symbol)) || nameProblem(suggested.name, rules)); n++) {
    suggested = { name: `${base.name} ${n}`.slice(0, 64), symbol: `${base.symbol.slice(0, 18)}${n}` };
  }
  return { name: body.name ?? null, symbol: body.symbol ?? null, suggested, problem: problem ?? null };
}
