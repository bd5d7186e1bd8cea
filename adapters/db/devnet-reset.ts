// Each devnet start is a new chain with the same chain id. An index of an earlier devnet, and Ponder's
// RPC cache of it (schema ponder_sync), would describe blocks that no longer exist: drop them when the
// devnet's genesis changes. Never used when RPC_URL names a real chain.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";

async function genesisHash(rpcUrl: string): Promise<string> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: ["0x0", false] }),
  });
  return ((await res.json()) as { result: { hash: string } }).result.hash;
}

export async function resetIndexForNewDevnet({ databaseUrl, rpcUrl, schema }: { databaseUrl: string; rpcUrl: string; schema: string }): Promise<boolean> {
  const genesis = await genesisHash(rpcUrl);
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`create table if not exists public.devnet_genesis (hash text not null)`;
    const [row] = await sql<{ hash: string }[]>`select hash from public.devnet_genesis limit 1`;
    if (row?.hash === genesis) return false;
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
