// Each devnet start is a new chain with the same chain id. An index of an earlier devnet, and Ponder's
// RPC cache of it (schema ponder_sync), would describe blocks that no longer exist: drop them when the
// devnet's genesis changes, or when the index went past a reused devnet's chain. Never used when RPC_URL
// names a real chain.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";

async function blockHash(rpcUrl: string, number: bigint): Promise<string | undefined> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: [`0x${number.toString(16)}`, false] }),
  });
  return ((await res.json()) as { result: { hash: string } | null }).result?.hash;
}
const genesisHash = async (rpcUrl: string) => (await blockHash(rpcUrl, 0n))!;

/** Ponder's latest checkpoint begins with a 10-digit timestamp and a 16-digit chain id, then the block number. */
const checkpointBlock = (checkpoint: string) => BigInt(checkpoint.slice(26, 42));

/**
 * A devnet reused from its state file (DEVNET_STATE_FILE) keeps its genesis, but one killed before its
 * last save is older than the index: its blocks past the save were mined again with other hashes. The
 * last block Ponder cached at or below its checkpoint must be on the chain with the same hash.
 */
async function indexAheadOfChain(sql: postgres.Sql, rpcUrl: string, schema: string): Promise<boolean> {
  const [cp] = await sql<{ latest_checkpoint: string }[]>`select latest_checkpoint from ${sql(schema)}._ponder_checkpoint limit 1`.catch(
    () => [] as { latest_checkpoint: string }[],
  );
  if (!cp) return false;
  const below = checkpointBlock(cp.latest_checkpoint).toString();
  const [cached] = await sql<
    { number: string; hash: string }[]
  >`select number::text, hash from ponder_sync.blocks where number <= ${below} order by number desc limit 1`.catch(
    () => [] as { number: string; hash: string }[],
  );
  if (!cached) return false;
  return (await blockHash(rpcUrl, BigInt(cached.number))) !== cached.hash;
}

/**
 * `savedChain`: the devnet may be one reloaded from its state file (DEVNET_STATE_FILE), so the index is also
 * checked against the chain's blocks. Without it every devnet is new or the same running one, and Ponder's
 * own reorg handling covers the rest (a block-hash check there would drop an index over a reorged block).
 */
export async function resetIndexForNewDevnet({
  databaseUrl,
  rpcUrl,
  schema,
  savedChain = false,
}: {
  databaseUrl: string;
  rpcUrl: string;
  schema: string;
  savedChain?: boolean;
}): Promise<boolean> {
  const genesis = await genesisHash(rpcUrl);
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`create table if not exists public.devnet_genesis (hash text not null)`;
    const [row] = await sql<{ hash: string }[]>`select hash from public.devnet_genesis limit 1`;
    if (row?.hash === genesis && !(savedChain && (await indexAheadOfChain(sql, rpcUrl, schema)))) return false;
    await sql.begin(async (tx) => {
      await tx.unsafe(`drop schema if exists ponder_sync cascade`);
      await tx.unsafe(`drop schema if exists "${schema.replace(/"/g, '""')}" cascade`);
      await tx`delete from public.devnet_genesis`;
      await tx`insert into public.devnet_genesis (hash) values (${genesis})`;
    });
    return true;
  } finally {
    await sql.end();
  }
}

/** The same for an index in PGlite (DATABASE_KIND=pglite): the whole directory holds index and cache. */
export async function resetPgliteForNewDevnet({ directory, rpcUrl }: { directory: string; rpcUrl: string }): Promise<boolean> {
  const genesis = await genesisHash(rpcUrl);
  const marker = join(directory, "..", "pglite-devnet-genesis");
  if (existsSync(marker) && readFileSync(marker, "utf8") === genesis) return false;
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(join(directory, ".."), { recursive: true });
  writeFileSync(marker, genesis);
  return true;
}
