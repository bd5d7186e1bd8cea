// An owner's positions, read from the indexer's projections: vault shares (valued at the vault's
// last harvest), deposit and withdrawal queue entries, limit orders, grids, ladder strategies with
// their parts, and basket tokens. Answer-shaped: checksummed addresses, decimal-string amount pairs
// (`x` in whole units, `xUnits` in base units), USD prices as numbers, ISO 8601 times.
//
// What is listed: every open item (shares above zero, pending queue entries, open or stopped
// orders, grids and ladders, basket balances above zero) and the items that ended (settled,
// refunded, cancelled or completed entries; closed orders, grids and ladders) in the last
// `closedDays` days (default 7), newest first. An owner with nothing has empty lists.
import { formatUnits, getAddress, type Address } from "viem";
import type { Kysely } from "kysely";
import type { Deployments, VaultFamily } from "../../chain/deployments.js";
import { amountPair, isoTime, priceUsd } from "../../domain/format.js";
import { tokenToUsdg, USDG_DECIMALS } from "../../domain/price.js";
import type { Projections } from "../projections.js";

/** Days of ended items an account answer lists, by default. */
export const DEFAULT_CLOSED_DAYS = 7;
/** Most ended items of one kind an answer lists (newest first). */
export const MAX_CLOSED_ITEMS = 200;

type Hex = `0x${string}`;

export type TokenRef = { address: Address; symbol: string | null; decimals: number };

type Pair<N extends string> = Record<N | `${N}Units`, string>;
type NullablePair<N extends string> = Record<N | `${N}Units`, string | null>;

export type VaultShares = {
  vault: Address;
  name: string | null;
  family: VaultFamily;
  /** Agents may use it (others answer 404 NOT_AGENT_VAULT on the vault routes). */
  agent: boolean;
  status: string;
  asset: TokenRef;
  /** When the share price used for `value` was read (the vault's last harvest), or null. */
  valuedAt: string | null;
  valueUsd: number | null;
  updatedAt: string;
} & Pair<"shares"> &
  NullablePair<"value">;

export type DepositRequest = {
  vault: Address;
  queue: Address;
  id: string;
  state: "pending" | "settled" | "refunded" | "cancelled";
  owner: Address;
  receiver: Address;
  requestedAt: string;
  updatedAt: string;
} & Pair<"assets"> &
  Pair<"minShares"> &
  NullablePair<"shares">;

export type WithdrawalRequest = {
  vault: Address;
  queue: Address;
  id: string;
  state: "pending" | "completed" | "cancelled";
  owner: Address;
  receiver: Address;
  requestedAt: string;
  updatedAt: string;
} & Pair<"shares"> &
  Pair<"minAssetsOut"> &
  NullablePair<"assets">;

export type LimitOrder = {
  id: string;
  token: TokenRef;
  /** sell: the token for USDG; buy: the token with USDG. */
  side: "buy" | "sell";
  market: boolean;
  state: "open" | "filled" | "claimable" | "closed";
  /** Once closed, else null. */
  closeReason: "filled" | "cancelled" | "realized" | null;
  /** Limit price in USDG per whole token. */
  price: number;
  priceX18: string;
  /** The input token (the token for a sell, USDG for a buy) and the output token. */
  tokenIn: TokenRef;
  tokenOut: TokenRef;
  createdAt: string;
  updatedAt: string;
} & Pair<"amountIn"> &
  Pair<"filledIn"> &
  Pair<"filledOut"> &
  Pair<"remaining"> &
  Pair<"commission"> &
  Pair<"owedUsdg"> &
  Pair<"owedToken"> &
  Pair<"claimedUsdg"> &
  Pair<"claimedToken">;

export type Grid = {
  id: string;
  token: TokenRef;
  buyPrice: number;
  buyPriceX18: string;
  sellPrice: number;
  sellPriceX18: string;
  repeat: boolean;
  /** stopped: a sell finished a round trip without repeat */
  state: "open" | "stopped" | "closed";
  trades: number;
  roundTrips: number;
  createdAt: string;
  updatedAt: string;
} & Pair<"amountUsdg"> &
  Pair<"fees"> &
  Pair<"collected">;

export type LadderPart = {
  /** From 1. */
  part: number;
  buyPrice: number;
  buyPriceX18: string;
  sellPrice: number;
  sellPriceX18: string;
  trades: number;
  finished: boolean;
} & Pair<"amount">;

export type LadderStrategy = {
  id: string;
  token: TokenRef;
  /** The side the stake starts on: USDG (buy first) or the token (sell first). */
  stake: TokenRef;
  sellFirst: boolean;
  repeat: boolean;
  /** Bit 0: buy lines repeat; bit 1: sell lines repeat. */
  repeatMask: number;
  oneWay: boolean;
  state: "open" | "closed";
  trades: number;
  parts: LadderPart[];
  createdAt: string;
  updatedAt: string;
} & Pair<"total"> &
  Pair<"fees"> &
  Pair<"collectedToken"> &
  Pair<"collectedUsdg">;

export type BasketHolding = {
  basket: Address;
  name: string;
  symbol: string;
  listed: boolean;
  /** Holding valued at the pool's balances and the tokens' last prices, or null when one is unknown. */
  valueUsd: number | null;
  updatedAt: string;
} & Pair<"balance">;

export type Account = {
  owner: Address;
  asOf: string;
  /** Ended items (queue entries, orders, grids, ladders) are listed from this time on. */
  closedSince: string;
  vaults: VaultShares[];
  depositRequests: DepositRequest[];
  withdrawalRequests: WithdrawalRequest[];
  limitOrders: LimitOrder[];
  grids: Grid[];
  ladderStrategies: LadderStrategy[];
  baskets: BasketHolding[];
};

export type ReadAccountParameters = {
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

function nullablePair<N extends string>(name: N, amount: bigint | null, decimals: number): NullablePair<N> {
  return amount === null ? ({ [name]: null, [`${name}Units`]: null } as NullablePair<N>) : amountPair(name, amount, decimals);
}

/** Everything the owner holds; empty lists for an owner with nothing. */
export async function readAccount(p: ReadAccountParameters): Promise<Account> {
  const owner = lower(p.owner);
  const closedDays = p.closedDays ?? DEFAULT_CLOSED_DAYS;
  const cutoff = Math.floor(p.now.getTime() / 1000) - closedDays * 86400;
  const usdgAddress = p.deployments.contracts.usdg ? lower(p.deployments.contracts.usdg) : undefined;
  const { reads } = p;

  const [positions, deposits, withdrawals, orders, grids, ladders, holdings] = await Promise.all([
    reads
      .selectFrom("vaultPosition")
      .innerJoin("vault", "vault.address", "vaultPosition.vault")
      .select([
        "vaultPosition.vault",
        "vaultPosition.shares",
        "vaultPosition.updatedAt",
        "vault.family",
        "vault.token",
        "vault.agent",
        "vault.status",
        "vault.totalAssets",
        "vault.totalSupply",
      ])
      .where("vaultPosition.owner", "=", owner)
      .where("vaultPosition.shares", ">", 0n)
      .orderBy("vaultPosition.vault")
      .execute(),
    reads
      .selectFrom("depositRequest")
      .selectAll()
      .where((eb) => eb.or([eb("owner", "=", owner), eb("receiver", "=", owner)]))
      .where((eb) => eb.or([eb("state", "=", "pending"), eb("updatedAt", ">=", cutoff)]))
      .orderBy("requestedAt", "desc")
      .execute(),
    reads
      .selectFrom("withdrawalRequest")
      .selectAll()
      .where((eb) => eb.or([eb("owner", "=", owner), eb("receiver", "=", owner)]))
      .where((eb) => eb.or([eb("state", "=", "pending"), eb("updatedAt", ">=", cutoff)]))
      .orderBy("requestedAt", "desc")
      .execute(),
    reads
      .selectFrom("limitOrder")
      .selectAll()
      .where("owner", "=", owner)
      .where((eb) => eb.or([eb("state", "<>", "closed"), eb("updatedAt", ">=", cutoff)]))
      .orderBy("id", "desc")
      .execute(),
    reads
      .selectFrom("grid")
      .selectAll()
      .where("owner", "=", owner)
      .where((eb) => eb.or([eb("state", "<>", "closed"), eb("updatedAt", ">=", cutoff)]))
      .orderBy("id", "desc")
      .execute(),
    reads
      .selectFrom("ladder")
      .selectAll()
      .where("owner", "=", owner)
      .where((eb) => eb.or([eb("state", "<>", "closed"), eb("updatedAt", ">=", cutoff)]))
      .orderBy("id", "desc")
      .execute(),
    reads
      .selectFrom("basketBalance")
      .innerJoin("basket", "basket.address", "basketBalance.basket")
      .select([
        "basketBalance.basket",
        "basketBalance.balance",
        "basketBalance.updatedAt",
        "basket.name",
        "basket.symbol",
        "basket.listed",
        "basket.tokens",
        "basket.balances",
        "basket.totalSupply",
      ])
      .where("basketBalance.owner", "=", owner)
      .where("basketBalance.balance", ">", 0n)
      .orderBy("basketBalance.basket")
      .execute(),
  ]);

  // Ended items beyond the cap are left out (newest kept); open ones are always listed.
  const capEnded = <T extends { state: string }>(rows: T[], open: (row: T) => boolean): T[] => {
    let ended = 0;
    return rows.filter((row) => open(row) || ++ended <= MAX_CLOSED_ITEMS);
  };
  const depositRows = capEnded(deposits, (r) => r.state === "pending");
  const withdrawalRows = capEnded(withdrawals, (r) => r.state === "pending");
  const orderRows = capEnded(orders, (r) => r.state !== "closed");
  const gridRows = capEnded(grids, (r) => r.state !== "closed");
  const ladderRows = capEnded(ladders, (r) => r.state !== "closed");

  const ladderIds = ladderRows.map((l) => l.id);
  const vaultAddresses = positions.map((v) => lower(v.vault));
  const [parts, snapshots] = await Promise.all([
    ladderIds.length
      ? reads.selectFrom("ladderLeg").selectAll().where("ladderId", "in", ladderIds).orderBy("ladderId").orderBy("leg").execute()
      : Promise.resolve([]),
    vaultAddresses.length
      ? reads
          .selectFrom("vaultSnapshot")
          .select(["vault", "timestamp", "totalAssets", "totalSupply"])
          .distinctOn("vault")
          .where("vault", "in", vaultAddresses)
          .orderBy("vault")
          .orderBy("timestamp", "desc")
          .execute()
      : Promise.resolve([]),
  ]);

  const tokenAddresses = new Set<Hex>();
  if (usdgAddress) tokenAddresses.add(usdgAddress);
  for (const v of positions) tokenAddresses.add(lower(v.token));
  for (const o of orderRows) tokenAddresses.add(lower(o.token));
  for (const g of gridRows) tokenAddresses.add(lower(g.token));
  for (const l of ladderRows) tokenAddresses.add(lower(l.token));
  for (const b of holdings) for (const t of b.tokens) tokenAddresses.add(lower(t));
  const [tokenRows, marketRows] = await Promise.all([
    // selectAll, not a column list: Ponder names priceX18 `price_x_18`, and kysely's CamelCasePlugin
    // would ask for `price_x18` (result columns map back to camelCase either way).
    reads.selectFrom("token").selectAll().where("address", "in", [...tokenAddresses]).execute(),
    orderRows.length
      ? reads.selectFrom("market").select(["token", "quoteIs0"]).where("token", "in", [...new Set(orderRows.map((o) => lower(o.token)))]).execute()
      : Promise.resolve([]),
  ]);

  const tokens = new Map(tokenRows.map((t) => [lower(t.address), t]));
  const usdg: TokenRef = usdgAddress
    ? { address: getAddress(usdgAddress), symbol: tokens.get(usdgAddress)?.symbol ?? "USDG", decimals: tokens.get(usdgAddress)?.decimals ?? USDG_DECIMALS }
    : { address: getAddress("0x0000000000000000000000000000000000000000"), symbol: "USDG", decimals: USDG_DECIMALS };
  const tokenRef = (address: string): TokenRef => {
    const row = tokens.get(lower(address));
    return { address: getAddress(address), symbol: row?.symbol ?? null, decimals: row?.decimals ?? 18 };
  };
  /** USD of `amount` base units of `address`, or null when its price is unknown. */
  const usdOf = (address: string, amount: bigint): number | null => {
    if (usdgAddress && lower(address) === usdgAddress) return Number(formatUnits(amount, usdg.decimals));
    const row = tokens.get(lower(address));
    if (!row || row.priceX18 === 0n) return null;
    return Number(formatUnits(tokenToUsdg(amount, row.decimals, row.priceX18), USDG_DECIMALS));
  };
  const vaultNames = new Map(p.deployments.vaults.map((v) => [lower(v.address), v.name]));
  const latestSnapshot = new Map(snapshots.map((s) => [lower(s.vault), s]));
  const quoteIs0 = new Map(marketRows.map((m) => [lower(m.token), m.quoteIs0]));
  const partsOf = new Map<string, typeof parts>();
  for (const part of parts) partsOf.set(part.ladderId.toString(), [...(partsOf.get(part.ladderId.toString()) ?? []), part]);

  const vaults: VaultShares[] = positions.map((row) => {
    const family = row.family as VaultFamily;
    const asset = family === "stock-token" ? tokenRef(row.token) : usdg;
    const snapshot = latestSnapshot.get(lower(row.vault));
    const [assets, supply] = snapshot ? [snapshot.totalAssets, snapshot.totalSupply] : [row.totalAssets, row.totalSupply];
    const shares = unitsOf(row.shares);
    const value = supply > 0n ? (shares * unitsOf(assets)) / unitsOf(supply) : null;
    return {
      vault: getAddress(row.vault),
      name: vaultNames.get(lower(row.vault)) ?? null,
      family,
      agent: row.agent,
      status: row.status,
      asset,
      ...amountPair("shares", shares, SHARE_DECIMALS[family] ?? 18),
      ...nullablePair("value", value, asset.decimals),
      valueUsd: value === null ? null : usdOf(asset.address, value),
      valuedAt: snapshot ? isoTime(snapshot.timestamp) : null,
      updatedAt: isoTime(row.updatedAt),
    };
  });

  const shareDecimalsOf = (vault: string) => {
    const family = p.deployments.vaults.find((v) => lower(v.address) === lower(vault))?.family;
    return SHARE_DECIMALS[family ?? "merged"] ?? 12;
  };

  const depositRequests: DepositRequest[] = depositRows.map((row) => ({
    vault: getAddress(row.vault),
    queue: getAddress(row.queue),
    id: row.id.toString(),
    state: row.state as DepositRequest["state"],
    owner: getAddress(row.owner),
    receiver: getAddress(row.receiver),
    ...amountPair("assets", unitsOf(row.assets), usdg.decimals),
    ...amountPair("minShares", unitsOf(row.minShares), shareDecimalsOf(row.vault)),
    ...nullablePair("shares", row.shares === null ? null : unitsOf(row.shares), shareDecimalsOf(row.vault)),
    requestedAt: isoTime(row.requestedAt),
    updatedAt: isoTime(row.updatedAt),
  }));

  const withdrawalRequests: WithdrawalRequest[] = withdrawalRows.map((row) => ({
    vault: getAddress(row.vault),
    queue: getAddress(row.queue),
    id: row.id.toString(),
    state: row.state as WithdrawalRequest["state"],
    owner: getAddress(row.owner),
    receiver: getAddress(row.receiver),
    ...amountPair("shares", unitsOf(row.shares), shareDecimalsOf(row.vault)),
    ...amountPair("minAssetsOut", unitsOf(row.minAssetsOut), usdg.decimals),
    ...nullablePair("assets", row.assets === null ? null : unitsOf(row.assets), usdg.decimals),
    requestedAt: isoTime(row.requestedAt),
    updatedAt: isoTime(row.updatedAt),
  }));

  const limitOrders: LimitOrder[] = orderRows.map((row) => {
    const token = tokenRef(row.token);
    const [tokenIn, tokenOut] = row.sellToken ? [token, usdg] : [usdg, token];
    // owed/claimed are per pool token: token0 is USDG when the market's quoteIs0.
    const usdgIs0 = quoteIs0.get(lower(row.token)) ?? lower(usdg.address) < lower(row.token);
    const [owedUsdg, owedToken] = usdgIs0 ? [row.owed0, row.owed1] : [row.owed1, row.owed0];
    const [claimedUsdg, claimedToken] = usdgIs0 ? [row.claimed0, row.claimed1] : [row.claimed1, row.claimed0];
    return {
      id: row.id.toString(),
      token,
      side: row.sellToken ? "sell" : "buy",
      market: row.market,
      state: row.state as LimitOrder["state"],
      closeReason: (row.closeReason ?? null) as LimitOrder["closeReason"],
      price: priceUsd(row.priceX18),
      priceX18: row.priceX18.toString(),
      tokenIn,
      tokenOut,
      ...amountPair("amountIn", unitsOf(row.amountIn), tokenIn.decimals),
      ...amountPair("filledIn", unitsOf(row.filledIn), tokenIn.decimals),
      ...amountPair("filledOut", unitsOf(row.filledOut), tokenOut.decimals),
      ...amountPair("remaining", unitsOf(row.remaining), tokenIn.decimals),
      ...amountPair("commission", unitsOf(row.commission), tokenOut.decimals),
      ...amountPair("owedUsdg", unitsOf(owedUsdg), usdg.decimals),
      ...amountPair("owedToken", unitsOf(owedToken), token.decimals),
      ...amountPair("claimedUsdg", unitsOf(claimedUsdg), usdg.decimals),
      ...amountPair("claimedToken", unitsOf(claimedToken), token.decimals),
      createdAt: isoTime(row.createdAt),
      updatedAt: isoTime(row.updatedAt),
    };
  });

  const gridList: Grid[] = gridRows.map((row) => ({
    id: row.id.toString(),
    token: tokenRef(row.token),
    buyPrice: priceUsd(row.buyPriceX18),
    buyPriceX18: row.buyPriceX18.toString(),
    sellPrice: priceUsd(row.sellPriceX18),
    sellPriceX18: row.sellPriceX18.toString(),
    ...amountPair("amountUsdg", unitsOf(row.amountUsdg), usdg.decimals),
    repeat: row.repeat,
    state: row.state as Grid["state"],
    trades: row.trades,
    roundTrips: row.roundTrips,
    ...amountPair("fees", unitsOf(row.fees), usdg.decimals),
    ...amountPair("collected", unitsOf(row.collected), usdg.decimals),
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  }));

  const ladderStrategies: LadderStrategy[] = ladderRows.map((row) => {
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
      ...amountPair("total", unitsOf(row.total), stake.decimals),
      ...amountPair("fees", unitsOf(row.fees), usdg.decimals),
      ...amountPair("collectedToken", unitsOf(row.collectedToken), token.decimals),
      ...amountPair("collectedUsdg", unitsOf(row.collectedUsdg), usdg.decimals),
      parts: (partsOf.get(row.id.toString()) ?? []).map((leg) => ({
        part: leg.leg + 1,
        buyPrice: priceUsd(leg.buyPriceX18),
        buyPriceX18: leg.buyPriceX18.toString(),
        sellPrice: priceUsd(leg.sellPriceX18),
        sellPriceX18: leg.sellPriceX18.toString(),
        ...amountPair("amount", unitsOf(leg.amount), stake.decimals),
        trades: leg.trades,
        finished: leg.finished,
      })),
      createdAt: isoTime(row.createdAt),
      updatedAt: isoTime(row.updatedAt),
    };
  });

  const baskets: BasketHolding[] = holdings.map((row) => {
    const balance = unitsOf(row.balance);
    const supply = unitsOf(row.totalSupply);
    let poolUsd: number | null = 0;
    row.tokens.forEach((token, i) => {
      const usd = usdOf(token, unitsOf(row.balances[i] ?? "0"));
      poolUsd = poolUsd === null || usd === null ? null : poolUsd + usd;
    });
    const valueUsd = poolUsd === null || supply === 0n ? null : (poolUsd * Number(formatUnits((balance * 10n ** 18n) / supply, 18)));
    return {
      basket: getAddress(row.basket),
      name: row.name,
      symbol: row.symbol,
      listed: row.listed,
      ...amountPair("balance", balance, BASKET_DECIMALS),
      valueUsd,
      updatedAt: isoTime(row.updatedAt),
    };
  });

  return {
    owner: getAddress(owner),
    asOf: p.now.toISOString(),
    closedSince: isoTime(cutoff),
    vaults,
    depositRequests,
    withdrawalRequests,
    limitOrders,
    grids: gridList,
    ladderStrategies,
    baskets,
  };
}
