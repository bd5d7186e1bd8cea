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
import { CompiledQuery, type Kysely } from "kysely";
import type { Deployments, VaultFamily } from "../../chain/deployments.js";
import { amountPair, isoTime, priceUsd } from "../../../domain/format.js";
import { tokenToUsdg, USDG_DECIMALS } from "../../../domain/price.js";
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

// ---------------------------------------------------------------- the one statement
//
// The whole account is one SQL statement: Postgres assembles every list as JSON (each sub-select an
// index lookup on `owner`, the vault's latest snapshot a lateral lookup, ladder parts nested), so an
// answer costs one round trip and one JSON.parse instead of 9-11 statements in three waves through
// kysely. Amounts (numeric(78)) are cast to text, since a JSON number would lose digits. Ended items
// beyond MAX_CLOSED_ITEMS are cut in SQL (the newest kept); open ones are always listed.

/** A bigint column as it arrives in the JSON: a decimal string. */
type Dec = string;
type Wire<T, Amounts extends keyof T, Nullable extends keyof T = never> = Omit<T, Amounts | Nullable> & { [K in Amounts]: Dec } & { [K in Nullable]: Dec | null };

type WirePosition = { vault: Hex; shares: Dec; updatedAt: number; family: string; token: Hex; agent: boolean; status: string; totalAssets: Dec; totalSupply: Dec; snapshotAt: number | null; snapshotAssets: Dec | null; snapshotSupply: Dec | null };
type WireDeposit = Wire<Projections["depositRequest"], "id" | "assets" | "minShares", "shares">;
type WireWithdrawal = Wire<Projections["withdrawalRequest"], "id" | "shares" | "minAssetsOut", "assets">;
type WireOrder = Wire<Projections["limitOrder"], "id" | "amountIn" | "priceX18" | "filledIn" | "filledOut" | "commission" | "remaining" | "owed0" | "owed1" | "claimed0" | "claimed1"> & { quoteIs0: boolean | null };
type WireGrid = Wire<Projections["grid"], "id" | "buyPriceX18" | "sellPriceX18" | "amountUsdg" | "fees" | "collected" | "usdg" | "tokens" | "costUsdg">;
type WireLeg = { leg: number; buyPriceX18: Dec; sellPriceX18: Dec; amount: Dec; trades: number; finished: boolean };
type WireLadder = Wire<Projections["ladder"], "id" | "total" | "fees" | "collectedToken" | "collectedUsdg"> & { parts: WireLeg[] };
type WireHolding = { basket: Hex; balance: Dec; updatedAt: number; name: string; symbol: string; listed: boolean; tokens: string[]; balances: string[]; totalSupply: Dec };
type WireToken = { address: Hex; symbol: string; decimals: number; priceX18: Dec };

type WireAccount = {
  vaults: WirePosition[];
  deposits: WireDeposit[];
  withdrawals: WireWithdrawal[];
  orders: WireOrder[];
  grids: WireGrid[];
  ladders: WireLadder[];
  holdings: WireHolding[];
  tokens: WireToken[];
};

/** The statement over `schema` ($1 owner, $2 cutoff in unix seconds, $3 USDG address or null, $4 MAX_CLOSED_ITEMS). */
function accountStatement(schema: string | undefined): string {
  const t = (table: string) => (schema ? `"${schema}"."${table}"` : `"${table}"`);
  // Open items, plus the newest `$4` ended ones since the cutoff. `newest` orders by an expression
  // (`x.id + 0`), never by a bare primary key: otherwise the planner may walk the whole key index
  // backwards hunting for this owner's 200 rows instead of looking the owner up.
  const openAndEnded = (table: string, columns: string, who: string, open: string, newest: string) => `
    (select ${columns} from ${t(table)} x where ${who} and ${open})
    union all
    (select ${columns} from ${t(table)} x where ${who} and not (${open}) and x.updated_at >= $2 order by ${newest} limit $4)`;
  const depositColumns = `x.queue, x.id::text as id, x.vault, x.owner, x.receiver, x.assets::text as assets, x.min_shares::text as "minShares", x.state,
      x.shares::text as shares, x.requested_at as "requestedAt", x.updated_at as "updatedAt"`;
  const withdrawalColumns = `x.queue, x.id::text as id, x.vault, x.owner, x.receiver, x.shares::text as shares, x.min_assets_out::text as "minAssetsOut", x.state,
      x.assets::text as assets, x.requested_at as "requestedAt", x.updated_at as "updatedAt"`;
  const orderColumns = `x.id::text as id, x.token, x.sell_token as "sellToken", x.market, x.amount_in::text as "amountIn", x.price_x_18::text as "priceX18",
      x.filled_in::text as "filledIn", x.filled_out::text as "filledOut", x.commission::text as commission, x.remaining::text as remaining,
      x.owed0::text as owed0, x.owed1::text as owed1, x.claimed0::text as claimed0, x.claimed1::text as claimed1, x.state, x.close_reason as "closeReason",
      x.created_at as "createdAt", x.updated_at as "updatedAt", (select m.quote_is0 from ${t("market")} m where m.token = x.token limit 1) as "quoteIs0"`;
  const gridColumns = `x.id::text as id, x.token, x.buy_price_x_18::text as "buyPriceX18", x.sell_price_x_18::text as "sellPriceX18", x.amount_usdg::text as "amountUsdg",
      x.repeat, x.state, x.trades, x.round_trips as "roundTrips", x.fees::text as fees, x.collected::text as collected, x.created_at as "createdAt", x.updated_at as "updatedAt"`;
  const ladderColumns = `x.id, x.token, x.sell_first as "sellFirst", x.repeat, x.repeat_mask as "repeatMask", x.one_way as "oneWay", x.state, x.trades,
      x.total::text as total, x.fees::text as fees, x.collected_token::text as "collectedToken", x.collected_usdg::text as "collectedUsdg",
      x.created_at as "createdAt", x.updated_at as "updatedAt"`;
  const depositOwner = "(x.owner = $1 or x.receiver = $1)";
  return `
with
  p as (
    select v_p.vault, v_p.shares::text as shares, v_p.updated_at as "updatedAt", v.family, v.token, v.agent, v.status,
           v.total_assets::text as "totalAssets", v.total_supply::text as "totalSupply",
           s.timestamp as "snapshotAt", s.total_assets::text as "snapshotAssets", s.total_supply::text as "snapshotSupply"
    from ${t("vault_position")} v_p
    join ${t("vault")} v on v.address = v_p.vault
    left join lateral (select vs.timestamp, vs.total_assets, vs.total_supply from ${t("vault_snapshot")} vs where vs.vault = v_p.vault order by vs.timestamp desc limit 1) s on true
    where v_p.owner = $1 and v_p.shares > 0),
  d as (${openAndEnded("deposit_request", depositColumns, depositOwner, "x.state = 'pending'", "x.requested_at desc")}),
  w as (${openAndEnded("withdrawal_request", withdrawalColumns, depositOwner, "x.state = 'pending'", "x.requested_at desc")}),
  o as (${openAndEnded("limit_order", orderColumns, "x.owner = $1", "x.state <> 'closed'", "x.id + 0 desc")}),
  g as (${openAndEnded("grid", gridColumns, "x.owner = $1", "x.state <> 'closed'", "x.id + 0 desc")}),
  l as (${openAndEnded("ladder", ladderColumns, "x.owner = $1", "x.state <> 'closed'", "x.id + 0 desc")}),
  b as (
    select bb.basket, bb.balance::text as balance, bb.updated_at as "updatedAt", k.name, k.symbol, k.listed, k.tokens, k.balances, k.total_supply::text as "totalSupply"
    from ${t("basket_balance")} bb join ${t("basket")} k on k.address = bb.basket
    where bb.owner = $1 and bb.balance > 0),
  tk as (
    select tk.address, tk.symbol, tk.decimals, tk.price_x_18::text as "priceX18" from ${t("token")} tk
    where tk.address in (
      select $3::text where $3::text is not null
      union select token from p union select token from o union select token from g union select token from l
      union select lower(jsonb_array_elements_text(tokens::jsonb)) from b))
select json_build_object(
  'vaults', coalesce((select json_agg(p order by p.vault) from p), '[]'),
  'deposits', coalesce((select json_agg(d order by d."requestedAt" desc) from d), '[]'),
  'withdrawals', coalesce((select json_agg(w order by w."requestedAt" desc) from w), '[]'),
  'orders', coalesce((select json_agg(o order by o.id::numeric desc) from o), '[]'),
  'grids', coalesce((select json_agg(g order by g.id::numeric desc) from g), '[]'),
  'ladders', coalesce((select json_agg(json_build_object(
      'id', l.id::text, 'token', l.token, 'sellFirst', l."sellFirst", 'repeat', l.repeat, 'repeatMask', l."repeatMask", 'oneWay', l."oneWay",
      'state', l.state, 'trades', l.trades, 'total', l.total, 'fees', l.fees, 'collectedToken', l."collectedToken", 'collectedUsdg', l."collectedUsdg",
      'createdAt', l."createdAt", 'updatedAt', l."updatedAt",
      'parts', coalesce((select json_agg(json_build_object(
          'leg', lg.leg, 'buyPriceX18', lg.buy_price_x_18::text, 'sellPriceX18', lg.sell_price_x_18::text, 'amount', lg.amount::text,
          'trades', lg.trades, 'finished', lg.finished) order by lg.leg) from ${t("ladder_leg")} lg where lg.ladder_id = l.id), '[]'))
    order by l.id desc) from l), '[]'),
  'holdings', coalesce((select json_agg(b order by b.basket) from b), '[]'),
  'tokens', coalesce((select json_agg(tk) from tk), '[]')
)::text as account`;
}

/** The views schema a Kysely qualifies its tables with (read off a compiled query), per instance. */
const schemaOf = new WeakMap<object, string | undefined>();
const statementOf = new Map<string, string>();

function statementFor(reads: Kysely<Projections>): string {
  if (!schemaOf.has(reads)) {
    const compiled = reads.selectFrom("token").select("address").compile().sql;
    schemaOf.set(reads, /from "([^"]+)"\."token"/.exec(compiled)?.[1]);
  }
  const schema = schemaOf.get(reads);
  const key = schema ?? "";
  let statement = statementOf.get(key);
  if (statement === undefined) statementOf.set(key, (statement = accountStatement(schema)));
  return statement;
}

const big = (x: Dec | null | undefined): bigint => (x === null || x === undefined ? 0n : BigInt(x));

/**
 * Everything the owner holds (empty lists for an owner with nothing), and until when (ms) the same rows would be listed if read again with a later `now`:
 * an ended item leaves the answer once the cutoff (`now` minus `closedDays`, in whole seconds) passes
 * its `updatedAt`; nothing enters it by time alone (only by a write). Infinity when nothing ended.
 */
export async function readAccountAnswer(p: ReadAccountParameters): Promise<{ account: Account; listedUntilMs: number }> {
  const owner = lower(p.owner);
  const closedDays = p.closedDays ?? DEFAULT_CLOSED_DAYS;
  const cutoff = Math.floor(p.now.getTime() / 1000) - closedDays * 86400;
  const usdgAddress = p.deployments.contracts.usdg ? lower(p.deployments.contracts.usdg) : undefined;

  const result = await p.reads.executeQuery<{ account: string }>(
    CompiledQuery.raw(statementFor(p.reads), [owner, cutoff, usdgAddress ?? null, MAX_CLOSED_ITEMS]),
  );
  const wire = JSON.parse(result.rows[0]!.account) as WireAccount;
  const positions = wire.vaults;
  const depositRows = wire.deposits;
  const withdrawalRows = wire.withdrawals;
  const orderRows = wire.orders;
  const gridRows = wire.grids;
  const ladderRows = wire.ladders;
  const holdings = wire.holdings;

  const tokens = new Map(wire.tokens.map((t) => [lower(t.address), { symbol: t.symbol, decimals: t.decimals, priceX18: BigInt(t.priceX18) }]));
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

  const vaults: VaultShares[] = positions.map((row) => {
    const family = row.family as VaultFamily;
    const asset = family === "stock-token" ? tokenRef(row.token) : usdg;
    const snapshotted = row.snapshotAt !== null;
    const [assets, supply] = snapshotted ? [big(row.snapshotAssets), big(row.snapshotSupply)] : [big(row.totalAssets), big(row.totalSupply)];
    const shares = big(row.shares);
    const value = supply > 0n ? (shares * assets) / supply : null;
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
      valuedAt: snapshotted ? isoTime(row.snapshotAt!) : null,
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
    ...nullablePair("shares", row.shares === null ? null : big(row.shares), shareDecimalsOf(row.vault)),
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
    ...nullablePair("assets", row.assets === null ? null : big(row.assets), usdg.decimals),
    requestedAt: isoTime(row.requestedAt),
    updatedAt: isoTime(row.updatedAt),
  }));

  const limitOrders: LimitOrder[] = orderRows.map((row) => {
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
    buyPrice: priceUsd(BigInt(row.buyPriceX18)),
    buyPriceX18: row.buyPriceX18.toString(),
    sellPrice: priceUsd(BigInt(row.sellPriceX18)),
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
      parts: row.parts.map((leg) => ({
        part: leg.leg + 1,
        buyPrice: priceUsd(BigInt(leg.buyPriceX18)),
        buyPriceX18: leg.buyPriceX18.toString(),
        sellPrice: priceUsd(BigInt(leg.sellPriceX18)),
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

  // Mirrors the statement's "ended" tests (not pending; closed) and its `updated_at >= cutoff`.
  const endedAt = [
    ...depositRows.filter((r) => r.state !== "pending"),
    ...withdrawalRows.filter((r) => r.state !== "pending"),
    ...orderRows.filter((r) => r.state === "closed"),
    ...gridRows.filter((r) => r.state === "closed"),
    ...ladderRows.filter((r) => r.state === "closed"),
  ].map((r) => Number(r.updatedAt));
  const oldestEnded = endedAt.length ? Math.min(...endedAt) : Infinity;
  const listedUntilMs = (oldestEnded + closedDays * 86400 + 1) * 1000;

  const account: Account = {
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
  return { account, listedUntilMs };
}
