// An owner's positions as rows, read from the indexer's projections in one statement: vault shares
// with the vault's books and its token's price, deposit and withdrawal queue entries, limit orders,
// grids, ladders with their parts, basket balances, and the tokens they name (usecases/answers/accounts.ts
// shapes the answer from them). Open items, and the newest MAX_CLOSED_ITEMS ended ones of each kind
// since the cutoff. The owners asked for at the same moment are read by one statement.
import type { Kysely } from "kysely";
import type { Projections } from "../projections.js";
import { runBatched, type StatementText } from "./statement.js";

/** Most ended items of one kind an answer lists (newest first). */
export const MAX_CLOSED_ITEMS = 200;

type Hex = `0x${string}`;

// ---------------------------------------------------------------- the one statement
//
// The whole account is one SQL statement: Postgres assembles every list as JSON (each sub-select an
// index lookup on `owner`, the vault and its token joined by key, ladder parts nested), so an
// answer costs one round trip (shared with the answers asked at the same moment) and one JSON.parse
// instead of 9-11 statements in three waves through kysely. Amounts (numeric(78)) are cast to text,
// since a JSON number would lose digits. Ended items beyond MAX_CLOSED_ITEMS are cut in SQL (the newest
// kept); open ones are always listed.

/** A bigint column as it arrives in the JSON: a decimal string. */
type Dec = string;
type Wire<T, Amounts extends keyof T, Nullable extends keyof T = never> = Omit<T, Amounts | Nullable> & { [K in Amounts]: Dec } & {
  [K in Nullable]: Dec | null;
};

type WirePosition = {
  vault: Hex;
  shares: Dec;
  updatedAt: number;
  family: string;
  token: Hex;
  agent: boolean;
  status: string;
  totalAssets: Dec;
  usdgAssets: Dec;
  tokenAssets: Dec;
  totalSupply: Dec;
  vaultUpdatedAt: number;
  tokenUpdatedAt: number | null;
};
type WireDeposit = Wire<Projections["depositRequest"], "id" | "assets" | "minShares", "shares">;
type WireWithdrawal = Wire<Projections["withdrawalRequest"], "id" | "shares" | "minAssetsOut", "assets">;
type WireOrder = Wire<
  Projections["limitOrder"],
  "id" | "amountIn" | "priceX18" | "filledIn" | "filledOut" | "commission" | "remaining" | "owed0" | "owed1" | "claimed0" | "claimed1"
> & { quoteIs0: boolean | null };
type WireGrid = Wire<Projections["grid"], "id" | "buyPriceX18" | "sellPriceX18" | "amountUsdg" | "fees" | "collected" | "usdg" | "tokens" | "costUsdg">;
type WireLeg = { leg: number; buyPriceX18: Dec; sellPriceX18: Dec; amount: Dec; trades: number; finished: boolean };
type WireLadder = Wire<Projections["ladder"], "id" | "total" | "fees" | "collectedToken" | "collectedUsdg"> & { parts: WireLeg[] };
type WireHolding = {
  basket: Hex;
  balance: Dec;
  updatedAt: number;
  name: string;
  symbol: string;
  listed: boolean;
  tokens: string[];
  balances: string[];
  totalSupply: Dec;
};
type WireToken = { address: Hex; symbol: string; decimals: number; priceX18: Dec };

export type AccountRows = {
  vaults: WirePosition[];
  deposits: WireDeposit[];
  withdrawals: WireWithdrawal[];
  orders: WireOrder[];
  grids: WireGrid[];
  ladders: WireLadder[];
  holdings: WireHolding[];
  tokens: WireToken[];
};

/**
 * The statement for a batch of owners (runBatched; bench/tools/statement-cost.ts reads its text): entries `{owner, cutoff, usdg}` (the owner lowercase,
 * the cutoff in unix seconds, USDG's address or null). The entry is `ask` (the CTE `o` is the owner's
 * limit orders).
 */
export const accountStatement: StatementText = (t) => {
  // Open items, plus the newest MAX_CLOSED_ITEMS ended ones since the cutoff, from one lookup of the owner's rows:
  // each row numbered within its class (open or ended) by `newest`, the ended kept up to that many. A union of
  // the two classes looked the owner up twice in each table, a tenth more of the statement's CPU.
  const openAndEnded = (table: string, columns: string, who: string, open: string, newest: string) => `
    select ${columns} from (
      select x.*, row_number() over (partition by ${open} order by ${newest}) as nth
      from ${t(table)} x where ${who} and (${open} or x.updated_at >= ask.cutoff)) x
    where ${open} or x.nth <= ${MAX_CLOSED_ITEMS}`;
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
  const depositOwner = "(x.owner = ask.owner or x.receiver = ask.owner)";
  return `
select ask.i, (
with
  p as (
    select v_p.vault, v_p.shares::text as shares, v_p.updated_at as "updatedAt", v.family, v.token, v.agent, v.status,
           v.total_assets::text as "totalAssets", v.usdg_assets::text as "usdgAssets", v.token_assets::text as "tokenAssets",
           v.total_supply::text as "totalSupply", v.updated_at as "vaultUpdatedAt", vt.updated_at as "tokenUpdatedAt"
    from ${t("vault_position")} v_p
    join ${t("vault")} v on v.address = v_p.vault
    left join ${t("token")} vt on vt.address = v.token
    where v_p.owner = ask.owner and v_p.shares > 0),
  d as (${openAndEnded("deposit_request", depositColumns, depositOwner, "x.state = 'pending'", "x.requested_at desc")}),
  w as (${openAndEnded("withdrawal_request", withdrawalColumns, depositOwner, "x.state = 'pending'", "x.requested_at desc")}),
  o as (${openAndEnded("limit_order", orderColumns, "x.owner = ask.owner", "x.state <> 'closed'", "x.id desc")}),
  g as (${openAndEnded("grid", gridColumns, "x.owner = ask.owner", "x.state <> 'closed'", "x.id desc")}),
  l as (${openAndEnded("ladder", ladderColumns, "x.owner = ask.owner", "x.state <> 'closed'", "x.id desc")}),
  b as (
    select bb.basket, bb.balance::text as balance, bb.updated_at as "updatedAt", k.name, k.symbol, k.listed, k.tokens, k.balances, k.total_supply::text as "totalSupply"
    from ${t("basket_balance")} bb join ${t("basket")} k on k.address = bb.basket
    where bb.owner = ask.owner and bb.balance > 0),
  tk as (
    select tk.address, tk.symbol, tk.decimals, tk.price_x_18::text as "priceX18" from ${t("token")} tk
    where tk.address in (
      select ask.usdg where ask.usdg is not null
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
)::text) as account
from jsonb_to_recordset($1::text::jsonb) as ask(i int, owner text, cutoff int8, usdg text)`;
};

export type ReadAccountRowsParameters = {
  reads: Kysely<Projections>;
  owner: string;
  /** Ended items updated before this (unix seconds) are left out. */
  cutoff: number;
  /** USDG's address, lowercase (its token row is read too), or undefined. */
  usdg?: string;
};

/** The owner's rows (empty lists for an owner with nothing). */
export async function readAccountRows(p: ReadAccountRowsParameters): Promise<AccountRows> {
  const row = await runBatched<{ account: string }>(p.reads, accountStatement, { owner: p.owner.toLowerCase(), cutoff: p.cutoff, usdg: p.usdg ?? null });
  if (!row) throw new Error("the account statement answered no row");
  return JSON.parse(row.account) as AccountRows;
}
