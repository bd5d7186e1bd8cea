// Checking the indexer from outside, as an operator would: its projection tables and their hashes, the
// block it has indexed (Ponder's /status), more indexers over the same devnet, and its projections
// against what the contracts answer to eth_call at one block.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import postgres, { type Sql } from "postgres";
import { createPublicClient, getAddress, http, parseAbiItem, type Address, type PublicClient } from "viem";
import {
  basketPoolAbi,
  gridStrategyAbi,
  poolAbi,
  ladderStrategyAbi,
  limitOrderHookAbi,
  mergedVaultAbi,
  stockVaultAbi,
  upDepositQueueAbi,
} from "../../abis/index.js";
import { devnetChain } from "../../devnet/chain.js";
import * as schema from "../../ponder.schema.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { convertToAssets, shareDecimals, vaultTotalAssets, type VaultFamily } from "../../domain/vault-figures.js";
import { freePort, ponderReady, readJson, spawnTs, stopProcess, waitFor, type Stack } from "./stack.js";

const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const NUMERIC_OID = 1700;

/** The projection tables, as ponder.schema.ts declares them (drizzle keeps a table's name under this symbol). */
export const projectionTables: string[] = Object.values(schema)
  .map((value) => (value as unknown as Record<symbol, unknown>)[Symbol.for("drizzle:Name")])
  .filter((name): name is string => typeof name === "string")
  .sort();

/** A postgres.js client whose numeric columns (Ponder's bigint) parse to bigint. */
export function projectionsSql(databaseUrl: string): Sql {
  return postgres(databaseUrl, {
    max: 2,
    onnotice: () => {},
    // Ponder's columns are snake_case; rows come back with the schema's camelCase field names.
    transform: postgres.camel,
    types: { numeric: { to: NUMERIC_OID, from: [NUMERIC_OID], serialize: (v: bigint) => v.toString(), parse: (v: string) => BigInt(v) } },
  });
}

// ---------------------------------------------------------------- blocks

/** The block Ponder has indexed, from its /status ({"chain4663": {"id", "block": {"number", "timestamp"}}}); undefined before its first checkpoint. */
export async function indexedBlock(ponderUrl: string): Promise<number | undefined> {
  const res = await fetch(`${ponderUrl}/status`);
  if (!res.ok) return undefined;
  const status = (await res.json()) as Record<string, { block?: { number?: number } }>;
  return status.chain4663?.block?.number;
}

export async function chainHead(rpcUrl: string): Promise<number> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
  });
  return Number(((await res.json()) as { result: string }).result);
}

/** Waits until the indexer is ready and has indexed exactly `block` (the newest blocks are indexed after /ready turns 200). */
export async function waitIndexedAt(ponderUrl: string, block: number, timeoutMs: number, log: string[] = []) {
  await waitFor(`indexer at block ${block}`, async () => (await ponderReady(ponderUrl)) && (await indexedBlock(ponderUrl)) === block, timeoutMs, log);
}

/** Waits until the indexer has indexed the devnet's head (the devnet must be still). Returns that block. */
export async function waitCaughtUp(ponderUrl: string, rpcUrl: string, timeoutMs: number, log: string[] = []): Promise<number> {
  const head = await chainHead(rpcUrl);
  await waitIndexedAt(ponderUrl, head, timeoutMs, log);
  return head;
}

// ---------------------------------------------------------------- databases and indexers

/** A new, empty database; `drop()` removes it. */
export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `agent_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  return {
    url: Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString(),
    async drop() {
      const a = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {});
      await a.end();
    },
  };
}

export type Indexer = {
  ponderUrl: string;
  databaseUrl: string;
  schema: string;
  env: Record<string, string>;
  log: string[];
  child: ChildProcess;
  /** SIGKILL to the whole process group (the script and Ponder), as a crash would. */
  kill(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Starts `npm run indexer` over the stack's devnet, into `databaseUrl` (default: the stack's) and `schema`,
 * on a port of its own. It does not wait: see waitIndexedAt / waitCaughtUp. Pass `env` of an earlier one
 * to restart it as it was.
 */
export async function startIndexer(
  stack: Stack,
  {
    databaseUrl = stack.databaseUrl,
    schema = "ponder",
    viewsSchema = "agent_views",
    env,
    extraEnv = {},
  }: { databaseUrl?: string; schema?: string; viewsSchema?: string; env?: Record<string, string>; extraEnv?: Record<string, string> } = {},
  log: string[] = [],
): Promise<Indexer> {
  const vars = env ?? {
    ...stack.env,
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: schema,
    VIEWS_SCHEMA: viewsSchema,
    PONDER_PORT: String(await freePort()),
    ...extraEnv,
  };
  const child = spawnTs("scripts/indexer.ts", vars, `indexer:${vars.DATABASE_SCHEMA}`, log);
  const killGroup = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        resolve();
      }
    });
  return {
    ponderUrl: `http://127.0.0.1:${vars.PONDER_PORT}`,
    databaseUrl: vars.DATABASE_URL!,
    schema: vars.DATABASE_SCHEMA!,
    env: vars,
    log,
    child,
    kill: killGroup,
    stop: () => stopProcess(child),
  };
}

// ---------------------------------------------------------------- table hashes

/** Rows and an md5 of every projection table of `schema`, all read in one snapshot. */
export async function tableHashes(databaseUrl: string, schema: string): Promise<Record<string, { rows: number; md5: string }>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    return await sql.begin("isolation level repeatable read read only", async (tx) => {
      const out: Record<string, { rows: number; md5: string }> = {};
      for (const table of projectionTables) {
        const [row] = await tx.unsafe(
          `select count(*)::int as rows, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as md5 from "${schema}"."${table}" t`,
        );
        out[table] = { rows: row!.rows as number, md5: row!.md5 as string };
      }
      return out;
    });
  } finally {
    await sql.end();
  }
}

/** Rows of every projection table (for watching a backfill). */
export async function tableRows(databaseUrl: string, schema: string): Promise<number> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const exists = await sql`select count(*)::int as n from information_schema.tables where table_schema = ${schema} and table_name = 'activity'`;
    if (exists[0]!.n === 0) return 0;
    const counts = await sql.unsafe(projectionTables.map((t) => `select count(*)::int as n from "${schema}"."${t}"`).join(" union all "));
    return counts.reduce((s, r) => s + (r.n as number), 0);
  } finally {
    await sql.end();
  }
}

// ---------------------------------------------------------------- projections against the chain

type Row = Record<string, unknown>;
export type Projected = { block: number; tables: Record<string, Row[]> };

const TRUTH_TABLES = ["vault", "vault_position", "token", "limit_order", "grid", "ladder", "ladder_leg", "basket", "basket_balance"] as const;

/**
 * The projections at one block: /status, then every table in one snapshot, then /status again; retried
 * until the indexer did not move in between, so the rows are those of `block`.
 */
export async function projectedAtOneBlock(stack: Stack): Promise<Projected> {
  const sql = projectionsSql(stack.databaseUrl);
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      const before = await indexedBlock(stack.ponderUrl);
      const tables = await sql.begin("isolation level repeatable read read only", async (tx) => {
        const out: Record<string, Row[]> = {};
        for (const t of TRUTH_TABLES) out[t] = (await tx.unsafe(`select * from "${stack.viewsSchema}"."${t}"`)) as Row[];
        return out;
      });
      const after = await indexedBlock(stack.ponderUrl);
      if (before !== undefined && before === after) return { block: before, tables };
    }
    throw new Error("the indexer kept moving while its projections were read");
  } finally {
    await sql.end();
  }
}

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const basketMadeEvent = parseAbiItem(
  "event BasketMade(address indexed pool, address indexed creator, string name, string symbol, address[] tokens, uint256[] normalizedWeights, uint256 swapFeePercentage)",
);
const ZERO = "0x0000000000000000000000000000000000000000";
const ORDER_REASONS = ["filled", "cancelled", "realized"];

const lower = (a: string) => a.toLowerCase();

/**
 * Every vault's supply, holders' shares and figures (TVL, one share's and every position's value, as
 * the reads value them: src/domain/vault-figures.ts over the projected books and price), every limit order, grid, ladder (and its parts) and basket
 * (balances, supply, holders) of the projections against eth_call at the indexed block. Returns the
 * differences, one line each (empty when the projections are the chain's).
 */
export async function differencesFromChain(
  stack: Stack,
): Promise<{ block: number; checked: Record<string, number>; differences: string[]; movedSinceBooks: VaultFamily[] }> {
  const d = readJson<Deployments>(stack.deploymentsFile);
  const { block, tables } = await projectedAtOneBlock(stack);
  const client = createPublicClient({ chain: devnetChain, transport: http(stack.rpcUrl, { batch: { batchSize: 200 } }) }) as PublicClient;
  const blockNumber = BigInt(block);
  const differences: string[] = [];
  const checked: Record<string, number> = {};
  const count = (what: string, n = 1) => (checked[what] = (checked[what] ?? 0) + n);
  const same = (what: string, projected: unknown, chain: unknown) => {
    const norm = (v: unknown) =>
      typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v) ? v.toLowerCase() : typeof v === "bigint" ? v.toString() : JSON.stringify(v);
    if (norm(projected) !== norm(chain)) differences.push(`${what}: projection ${norm(projected)}, chain ${norm(chain)}`);
  };
  const call = <T>(address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[] = []) =>
    client.readContract({ address, abi: abi as never, functionName, args: args as never, blockNumber }) as Promise<T>;
  const many = <T>(calls: { address: Address; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }[]) =>
    client.multicall({ contracts: calls as never, blockNumber, allowFailure: false, batchSize: 0 }) as Promise<T[]>;
  const fromBlock = BigInt(d.startBlock);

  /** Holders of an ERC20 (every address a Transfer ever moved to or from), from its logs up to the block. */
  const holdersOf = async (tokens: Address[]) => {
    const holders = new Map<string, Set<Address>>(tokens.map((t) => [lower(t), new Set<Address>()]));
    if (tokens.length === 0) return holders;
    const logs = await client.getLogs({ address: tokens, event: transferEvent, fromBlock, toBlock: blockNumber });
    for (const l of logs) for (const a of [l.args.from!, l.args.to!]) if (a !== ZERO) holders.get(lower(l.address))!.add(getAddress(a));
    return holders;
  };

  /** Balances of holders against the projection's per-owner rows: every row, and every holder with a row. */
  const compareHolders = async (what: string, token: Address, holders: Set<Address>, rows: Row[], amount: string) => {
    const byOwner = new Map(rows.map((r) => [lower(r.owner as string), r[amount] as bigint]));
    const owners = new Set([...holders, ...rows.map((r) => getAddress(r.owner as string))]);
    const list = [...owners];
    const balances = await many<bigint>(list.map((owner) => ({ address: token, abi: stockVaultAbi, functionName: "balanceOf", args: [owner] })));
    list.forEach((owner, i) => {
      const projected = byOwner.get(lower(owner));
      if (projected === undefined) differences.push(`${what} ${token} holder ${owner}: no row, chain ${balances[i]}`);
      else same(`${what} ${token} ${owner}`, projected, balances[i]);
      count(what);
    });
  };

  // ---- vaults: supply, queued deposits, every holder's shares, and the figures valued now
  const vaultHolders = await holdersOf(d.vaults.map((v) => v.address));
  /** Families of pair vaults whose value moved with the market since their books last changed (a harvest, deposit, burn or rebalance). */
  const movedSinceBooks: VaultFamily[] = [];
  for (const v of d.vaults) {
    const row = tables.vault!.find((r) => lower(r.address as string) === lower(v.address));
    if (!row) {
      differences.push(`vault ${v.address}: no row`);
      continue;
    }
    same(`vault ${v.address} totalSupply`, row.totalSupply, await call(v.address, stockVaultAbi, "totalSupply"));
    const queue = v.family === "merged" ? v.address : v.family === "up" ? v.depositQueue : undefined;
    if (queue)
      same(
        `vault ${v.address} pendingAssets`,
        row.pendingAssets,
        await call(queue, v.family === "merged" ? mergedVaultAbi : upDepositQueueAbi, "queuedAssets"),
      );
    count("vault");
    const rows = tables.vault_position!.filter((r) => lower(r.vault as string) === lower(v.address));
    await compareHolders("vault_position", v.address, vaultHolders.get(lower(v.address))!, rows, "shares");

    const market = tables.token!.find((r) => lower(r.address as string) === lower(row.token as string));
    // The parts of the figure, each against its own getter, so a difference says which one drifted.
    if (v.family !== "stock-token") {
      same(`vault ${v.address} usdgAssets`, row.usdgAssets, await call(v.address, mergedVaultAbi, "usdgAssets"));
      same(`vault ${v.address} tokenAssets`, row.tokenAssets, await call(v.address, mergedVaultAbi, "tokenAssets"));
      if (market) same(`token ${market.address as string} priceX18`, market.priceX18, await call(market.pool as Address, poolAbi, "priceX18"));
    }
    const books = { family: v.family, usdgAssets: row.usdgAssets as bigint, tokenAssets: row.tokenAssets as bigint, totalAssets: row.totalAssets as bigint };
    const totalAssets = vaultTotalAssets(books, {
      decimals: (market?.decimals as number | undefined) ?? null,
      priceX18: (market?.priceX18 as bigint | undefined) ?? null,
    });
    const chainAssets = await call<bigint>(v.address, stockVaultAbi, "totalAssets");
    same(`vault ${v.address} totalAssets`, totalAssets, chainAssets);
    if (v.family !== "stock-token" && chainAssets !== row.totalAssets) movedSinceBooks.push(v.family);
    const figures = { family: v.family, totalAssets, totalSupply: row.totalSupply as bigint };
    const one = 10n ** BigInt(shareDecimals(v.family));
    same(`vault ${v.address} one share's assets`, convertToAssets(one, figures), await call(v.address, stockVaultAbi, "convertToAssets", [one]));
    const held = rows.filter((r) => (r.shares as bigint) > 0n);
    const values = await many<bigint>(held.map((r) => ({ address: v.address, abi: stockVaultAbi, functionName: "convertToAssets", args: [r.shares] })));
    held.forEach((r, i) => same(`vault ${v.address} ${r.owner as string} value`, convertToAssets(r.shares as bigint, figures), values[i]));
    count("vault_figures");
    count("vault_position_value", held.length);
  }
  same("vault rows", tables.vault!.length, d.vaults.length);

  // ---- limit orders: every id the hook has given
  const hook = d.contracts.limitOrderHook!;
  const nextOrder = await call<bigint>(hook, limitOrderHookAbi, "nextId");
  const orders = await many<Record<string, any>>(
    range(1n, nextOrder).map((id) => ({ address: hook, abi: limitOrderHookAbi, functionName: "orders", args: [id] })),
  );
  same("limit_order rows", tables.limit_order!.length, orders.length);
  orders.forEach((o, i) => {
    const id = BigInt(i + 1);
    const row = tables.limit_order!.find((r) => r.id === id);
    if (!row) return void differences.push(`limit_order ${id}: no row`);
    const state = o.closed ? "closed" : o.active ? "open" : o.endReason === 0 ? "filled" : "claimable";
    const expected = {
      owner: o.owner,
      token: o.token,
      sellToken: o.sellToken,
      market: o.market,
      amountIn: o.amountIn,
      priceX18: o.priceX18,
      remaining: o.remaining,
      filledIn: o.filledIn,
      filledOut: o.filledOut,
      commission: o.commission,
      owed0: o.owed0,
      owed1: o.owed1,
      state,
      closeReason: o.closed ? ORDER_REASONS[o.endReason] : null,
    };
    for (const [field, value] of Object.entries(expected)) same(`limit_order ${id} ${field}`, row[field], value);
    count("limit_order");
  });

  // ---- grids
  const gridStrategy = d.contracts.gridStrategy!;
  const nextGrid = await call<bigint>(gridStrategy, gridStrategyAbi, "nextId");
  const grids = await many<Record<string, any>>(
    range(1n, nextGrid).map((id) => ({ address: gridStrategy, abi: gridStrategyAbi, functionName: "grids", args: [id] })),
  );
  same("grid rows", tables.grid!.length, grids.length);
  grids.forEach((g, i) => {
    const id = BigInt(i + 1);
    const row = tables.grid!.find((r) => r.id === id);
    if (!row) return void differences.push(`grid ${id}: no row`);
    const expected = {
      owner: g.owner,
      token: g.token,
      buyPriceX18: g.buyPriceX18,
      sellPriceX18: g.sellPriceX18,
      amountUsdg: g.amountUsdg,
      repeat: g.repeat,
      state: g.closed ? "closed" : g.active ? "open" : "stopped",
      usdg: g.usdg,
      tokens: g.tokens,
      holdsToken: g.holdsToken,
      costUsdg: g.costUsdg,
      trades: Number(g.trades),
      fees: g.fees,
    };
    for (const [field, value] of Object.entries(expected)) same(`grid ${id} ${field}`, row[field], value);
    count("grid");
  });

  // ---- ladders and their parts
  const ladderStrategy = d.contracts.ladderStrategy!;
  const nextLadder = await call<bigint>(ladderStrategy, ladderStrategyAbi, "nextId");
  const ids = range(1n, nextLadder);
  const [ladders, legsOf] = await Promise.all([
    many<Record<string, any>>(ids.map((id) => ({ address: ladderStrategy, abi: ladderStrategyAbi, functionName: "ladders", args: [id] }))),
    many<Record<string, any>[]>(ids.map((id) => ({ address: ladderStrategy, abi: ladderStrategyAbi, functionName: "legsOf", args: [id] }))),
  ]);
  same("ladder rows", tables.ladder!.length, ladders.length);
  same(
    "ladder_leg rows",
    tables.ladder_leg!.length,
    legsOf.reduce((s, legs) => s + legs.length, 0),
  );
  ladders.forEach((l, i) => {
    const id = BigInt(i + 1);
    const legs = legsOf[i]!;
    const row = tables.ladder!.find((r) => r.id === id);
    if (!row) return void differences.push(`ladder ${id}: no row`);
    const startBit = l.sellFirst ? 1 : 2;
    const expected = {
      owner: l.owner,
      token: l.token,
      legs: Number(l.legs),
      sellFirst: l.sellFirst,
      oneWay: l.oneWay,
      total: l.total,
      repeatMask: l.repeatMask,
      repeat: (l.repeatMask & startBit) !== 0,
      state: l.closed ? "closed" : l.active ? "open" : "stopped",
      fees: l.fees,
      trades: legs.reduce((s, p) => s + Number(p.trades), 0),
    };
    for (const [field, value] of Object.entries(expected)) same(`ladder ${id} ${field}`, row[field], value);
    legs.forEach((p, leg) => {
      const part = tables.ladder_leg!.find((r) => r.ladderId === id && r.leg === leg);
      if (!part) return void differences.push(`ladder ${id} part ${leg}: no row`);
      const expectedPart = {
        buyPriceX18: p.buyPriceX18,
        sellPriceX18: p.sellPriceX18,
        amount: p.amount,
        usdg: p.usdg,
        tokens: p.tokens,
        holdsToken: p.holdsToken,
        trades: Number(p.trades),
        finished: p.finished,
      };
      for (const [field, value] of Object.entries(expectedPart)) same(`ladder ${id} part ${leg} ${field}`, part[field], value);
      count("ladder_leg");
    });
    count("ladder");
  });

  // ---- baskets: every basket the maker made, its pool balances, supply and holders
  const made = await client.getLogs({ address: d.contracts.basketMaker!, event: basketMadeEvent, fromBlock, toBlock: blockNumber });
  const pools = made.map((l) => l.args.pool!);
  same("basket rows", tables.basket!.length, pools.length);
  const basketHolders = await holdersOf(pools);
  for (const pool of pools) {
    const row = tables.basket!.find((r) => lower(r.address as string) === lower(pool));
    if (!row) {
      differences.push(`basket ${pool}: no row`);
      continue;
    }
    const [balances, supply] = await Promise.all([
      call<readonly bigint[]>(pool, basketPoolAbi, "getBalances"),
      call<bigint>(pool, basketPoolAbi, "totalSupply"),
    ]);
    same(`basket ${pool} balances`, row.balances, balances.map(String));
    same(`basket ${pool} totalSupply`, row.totalSupply, supply);
    count("basket");
    const rows = tables.basket_balance!.filter((r) => lower(r.basket as string) === lower(pool));
    await compareHolders("basket_balance", pool, basketHolders.get(lower(pool))!, rows, "balance");
  }
  return { block, checked, differences, movedSinceBooks };
}

function range(from: bigint, to: bigint): bigint[] {
  const out: bigint[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}
