// An owner's positions as rows, read from the indexer's projections in one statement: vault shares
// with the vault's books and its token's price, deposit and withdrawal queue entries, limit orders,
// grids, ladders with their parts, basket balances, and the snapshot's tokens (usecases/answers/accounts.ts
// shapes the answer from them). Open items, and the newest MAX_CLOSED_ITEMS ended ones of each kind
// since the cutoff. The owners asked for at the same moment are read by one statement.
import type { Kysely } from "kysely";
import type { Projections } from "../projections.js";
import { CHECKPOINT_TRIGGERS_SQL } from "../projection-version.js";
import { keptWith, runBatchedWith, type StatementText } from "./statement.js";

/** Most ended items of one kind an answer lists (newest first). */
export const MAX_CLOSED_ITEMS = 200;

type Hex = `0x${string}`;

// ---------------------------------------------------------------- the one statement
//
// The whole account is one SQL statement: Postgres assembles every list as JSON (each sub-select an
// index lookup on `owner`, ladder parts nested; vaults, tokens and markets from the shared rows below), so an
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
/** A token as the account's pricing reads it (its price parsed once per snapshot). */
export type PricedToken = { address: Hex; symbol: string; decimals: number; priceX18: bigint; updatedAt: number };

export type AccountRows = {
  vaults: WirePosition[];
  deposits: WireDeposit[];
  withdrawals: WireWithdrawal[];
  orders: WireOrder[];
  grids: WireGrid[];
  ladders: WireLadder[];
  holdings: WireHolding[];
  /** Every token of the snapshot the rows were read in, by address (a superset of those the items name). */
  tokens: ReadonlyMap<string, PricedToken>;
};

// ---------------------------------------------------------------- the shared rows, once per snapshot
//
// Every answer names a few rows that all owners share: its vaults' books, its tokens' prices, the market's
// token order. The statement sends them (the batch's own row, i = -1) only when the snapshot it reads differs
// from the one the process's copy came from, and each owner's rows name them by address: a copy per
// process, re-read once per indexed block instead of looked up per owner. (Read per owner they were a
// quarter of the statement's Postgres CPU; bench/README.md, "The account statement's shared rows".) The
// copy is every row of the three tables: a block re-sends all of them, which grows with the tokens listed
// (a few kB per hundred tokens, per API process and block), not with the owners read.
//
// The snapshot's version is the read cache tracker's fingerprint (adapters/db/projection-version.ts),
// read in the statement's own snapshot: the views' checkpoint (every block and every backfill commit moves
// it), the checkpoint view's OID (views re-created over another schema) and the OIDs of the triggers on
// `_ponder_checkpoint`, which a reorg drops and re-creates in the transaction that reverts rows without
// moving the checkpoint. Equal versions: the shared tables hold exactly the copy's rows.

type SharedToken = { address: Hex; symbol: string; decimals: number; priceX18: Dec; updatedAt: number };
type SharedVault = Omit<WirePosition, "vault" | "shares" | "updatedAt" | "tokenUpdatedAt" | "vaultUpdatedAt"> & { address: Hex; updatedAt: number };
type SharedWire = { tokens: SharedToken[]; vaults: SharedVault[]; markets: { token: Hex; quoteIs0: boolean }[] };

/** The shared rows of one snapshot, by address (lowercase, as Ponder stores it). */
export type SharedRows = {
  /** null: read without a version (unversioned statement), for one batch. */
  version: string | null;
  tokens: ReadonlyMap<string, PricedToken>;
  vaults: ReadonlyMap<string, SharedVault>;
  /** Whether USDG is token0 of the token's market (the first market by pool, as the statement's `limit 1` read it). */
  quoteIs0: ReadonlyMap<string, boolean>;
};

const sharedVersion: StatementText = (t) => `
  coalesce((select string_agg(c::text, ';' order by c::text) from ${t("_ponder_checkpoint")} c), '')
  || '/' || coalesce(to_regclass('${t("_ponder_checkpoint")}')::oid::text, '')
  || '/' || ${CHECKPOINT_TRIGGERS_SQL}`;

const sharedRows: StatementText = (t) => `json_build_object(
  'tokens', coalesce((select json_agg(json_build_object('address', tk.address, 'symbol', tk.symbol, 'decimals', tk.decimals,
      'priceX18', tk.price_x_18::text, 'updatedAt', tk.updated_at)) from ${t("token")} tk), '[]'),
  'vaults', coalesce((select json_agg(json_build_object('address', v.address, 'family', v.family, 'token', v.token, 'agent', v.agent,
      'status', v.status, 'totalAssets', v.total_assets::text, 'usdgAssets', v.usdg_assets::text, 'tokenAssets', v.token_assets::text,
      'totalSupply', v.total_supply::text, 'updatedAt', v.updated_at)) from ${t("vault")} v), '[]'),
  'markets', coalesce((select json_agg(json_build_object('token', m.token, 'quoteIs0', m.quote_is0) order by m.pool) from ${t("market")} m), '[]'))`;

function sharedFrom(version: string | null, json: string): SharedRows {
  const wire = JSON.parse(json) as SharedWire;
  const quoteIs0 = new Map<string, boolean>();
  for (const m of wire.markets) if (!quoteIs0.has(m.token)) quoteIs0.set(m.token, m.quoteIs0);
  const tokens = new Map(wire.tokens.map((x) => [x.address, { ...x, priceX18: BigInt(x.priceX18) }]));
  return { version, tokens, vaults: new Map(wire.vaults.map((x) => [x.address, x])), quoteIs0 };
}

/**
 * The statement for a batch of owners (runBatchedWith; bench/tools/statement-cost.ts reads its text): $1 the entries `{owner, cutoff}`
 * (the owner lowercase, the cutoff in unix seconds), $2 the version of the process's copy of the shared rows (or null).
 * A row per entry (`account`: the owner's lists as JSON) and the batch's own (i = -1: `version`, and as `account` the
 * shared rows when the snapshot's version is not $2). The entry is `ask` (the CTE `o` is the owner's limit orders).
 */
const accountStatementOf =
  (versioned: boolean): StatementText =>
  (t) => {
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
      x.created_at as "createdAt", x.updated_at as "updatedAt"`;
    const gridColumns = `x.id::text as id, x.token, x.buy_price_x_18::text as "buyPriceX18", x.sell_price_x_18::text as "sellPriceX18", x.amount_usdg::text as "amountUsdg",
      x.repeat, x.state, x.trades, x.round_trips as "roundTrips", x.fees::text as fees, x.collected::text as collected, x.created_at as "createdAt", x.updated_at as "updatedAt"`;
    const ladderColumns = `x.id, x.token, x.sell_first as "sellFirst", x.repeat, x.repeat_mask as "repeatMask", x.one_way as "oneWay", x.state, x.trades,
      x.total::text as total, x.fees::text as fees, x.collected_token::text as "collectedToken", x.collected_usdg::text as "collectedUsdg",
      x.created_at as "createdAt", x.updated_at as "updatedAt"`;
    const depositOwner = "(x.owner = ask.owner or x.receiver = ask.owner)";
    // Unversioned (the fallback): the shared rows every time, and no read of the checkpoint (null, the copy is not kept).
    const batchRow = versioned
      ? `with version as (select ${sharedVersion(t)} as v)
select -1 as i, case when version.v is distinct from $2::text then ${sharedRows(t)}::text end as account, version.v as version from version`
      : `select -1 as i, ${sharedRows(t)}::text as account, case when $2::text is null then null::text end as version`;
    return `
${batchRow}
union all
select ask.i, (
with
  p as (
    select v_p.vault, v_p.shares::text as shares, v_p.updated_at as "updatedAt"
    from ${t("vault_position")} v_p
    where v_p.owner = ask.owner and v_p.shares > 0),
  d as (${openAndEnded("deposit_request", depositColumns, depositOwner, "x.state = 'pending'", "x.requested_at desc")}),
  w as (${openAndEnded("withdrawal_request", withdrawalColumns, depositOwner, "x.state = 'pending'", "x.requested_at desc")}),
  o as (${openAndEnded("limit_order", orderColumns, "x.owner = ask.owner", "x.state <> 'closed'", "x.id desc")}),
  g as (${openAndEnded("grid", gridColumns, "x.owner = ask.owner", "x.state <> 'closed'", "x.id desc")}),
  l as (${openAndEnded("ladder", ladderColumns, "x.owner = ask.owner", "x.state <> 'closed'", "x.id desc")}),
  b as (
    select bb.basket, bb.balance::text as balance, bb.updated_at as "updatedAt", k.name, k.symbol, k.listed, k.tokens, k.balances, k.total_supply::text as "totalSupply"
    from ${t("basket_balance")} bb join ${t("basket")} k on k.address = bb.basket
    where bb.owner = ask.owner and bb.balance > 0)
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
  'holdings', coalesce((select json_agg(b order by b.basket) from b), '[]')
)::text) as account, null::text as version
from jsonb_to_recordset($1::text::jsonb) as ask(i int, owner text, cutoff int8)`;
  };

export type ReadAccountRowsParameters = {
  reads: Kysely<Projections>;
  owner: string;
  /** Ended items updated before this (unix seconds) are left out. */
  cutoff: number;
};

export const accountStatement = accountStatementOf(true);
/**
 * The same without the version: a lock on Ponder's checkpoint table (held by a reorg's revert while it re-creates
 * its triggers, or by anything stuck holding it) holds up the versioned statement; past this long, the batch is
 * answered without it, as before the copy, so an account never waits on that lock for longer.
 */
const unversionedStatement = accountStatementOf(false);
const UNVERSIONED_AFTER_MS = 2_000;

/** What the statement answers per owner: the lists, positions naming their vault and orders without the market's token order. */
type OwnerWire = Omit<AccountRows, "vaults" | "orders" | "tokens"> & {
  vaults: { vault: Hex; shares: Dec; updatedAt: number }[];
  orders: Omit<WireOrder, "quoteIs0">[];
};
type StatementRow = { account: string | null; version: string | null };

/** Per reads pool: the newest copy of the shared rows, and how many times they were read (for tests and benchmarks). */
type SharedCopy = { current: SharedRows | undefined; loads: number; parsed: WeakMap<StatementRow, SharedRows> };
const copyOf = (reads: Kysely<Projections>): SharedCopy =>
  keptWith<SharedCopy>(reads, accountStatement, () => ({ current: undefined, loads: 0, parsed: new WeakMap() }));

/** How many times the shared rows were read on `reads` (once per snapshot version its batches met). */
export const sharedRowLoads = (reads: Kysely<Projections>): number => copyOf(reads).loads;

/** The owner's rows (empty lists for an owner with nothing). */
export async function readAccountRows(p: ReadAccountRowsParameters): Promise<AccountRows> {
  const copy = copyOf(p.reads);
  const { row, batch, taken } = await runBatchedWith<StatementRow, SharedRows | undefined>(
    p.reads,
    accountStatement,
    { owner: p.owner.toLowerCase(), cutoff: p.cutoff },
    {
      take: () => copy.current,
      param: (shared) => shared?.version ?? null,
      fallback: { statement: unversionedStatement, afterMs: UNVERSIONED_AFTER_MS },
    },
  );
  if (!row?.account) throw new Error("the account statement answered no row");
  // The batch's snapshot: the copy it was sent with, or the rows it sent because that copy was of another
  // snapshot (kept as the copy), or because it ran unversioned (this batch's only). Parsed once per batch.
  let shared = taken;
  if (batch?.account) {
    shared = copy.parsed.get(batch);
    if (!shared) {
      shared = sharedFrom(batch.version, batch.account);
      copy.parsed.set(batch, shared);
      if (batch.version !== null) copy.current = shared;
      copy.loads++;
    }
  }
  if (!shared) throw new Error("the account statement answered no shared rows");
  return withShared(JSON.parse(row.account) as OwnerWire, shared);
}

/** The owner's rows joined to the shared rows as the statement once joined them in SQL (each object written whole: no spread copies). */
function withShared(owner: OwnerWire, shared: SharedRows): AccountRows {
  const vaults: WirePosition[] = [];
  for (const p of owner.vaults) {
    const v = shared.vaults.get(p.vault);
    if (!v) continue; // a position's vault row is always there; an inner join in SQL, one here
    vaults.push({
      vault: p.vault,
      shares: p.shares,
      updatedAt: p.updatedAt,
      family: v.family,
      token: v.token,
      agent: v.agent,
      status: v.status,
      totalAssets: v.totalAssets,
      usdgAssets: v.usdgAssets,
      tokenAssets: v.tokenAssets,
      totalSupply: v.totalSupply,
      vaultUpdatedAt: v.updatedAt,
      tokenUpdatedAt: shared.tokens.get(v.token)?.updatedAt ?? null,
    });
  }
  const orders = owner.orders as WireOrder[];
  for (const o of orders) o.quoteIs0 = shared.quoteIs0.get(o.token) ?? null;
  return {
    vaults,
    deposits: owner.deposits,
    withdrawals: owner.withdrawals,
    orders,
    grids: owner.grids,
    ladders: owner.ladders,
    holdings: owner.holdings,
    tokens: shared.tokens,
  };
}
