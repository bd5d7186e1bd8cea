// The indexer's devnet check (adapters/db/devnet-reset.ts): a reused devnet (same genesis) keeps its index,
// unless the index went past the chain, as when a devnet killed before its last save mined those blocks again.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetIndexForNewDevnet } from "../../../adapters/db/devnet-reset.js";
import { startAnvil, type Anvil } from "../../../devnet/anvil.js";
import { createTestDatabase, type TestDatabase } from "../../api/support.js";

let anvil: Anvil;
let database: TestDatabase;
beforeAll(async () => {
  [anvil, database] = await Promise.all([startAnvil(), createTestDatabase()]);
});
afterAll(async () => {
  await anvil?.close();
  await database?.drop();
});

/** An index in Ponder's shape: its checkpoint at `checkpointBlock`, and the block it cached there. */
async function writeIndex(sql: postgres.Sql, checkpointBlock: bigint, cachedHash: string) {
  await sql.unsafe(`create schema if not exists ponder; create schema if not exists ponder_sync`);
  await sql.unsafe(
    `create table if not exists ponder._ponder_checkpoint (chain_name text primary key, chain_id bigint not null, latest_checkpoint varchar(75) not null)`,
  );
  await sql.unsafe(`create table if not exists ponder_sync.blocks (chain_id bigint not null, number bigint not null, hash varchar(66) not null)`);
  const checkpoint = `${"1".padStart(10, "0")}${"4663".padStart(16, "0")}${checkpointBlock.toString().padStart(16, "0")}${"0".repeat(33)}`;
  await sql`insert into ponder._ponder_checkpoint values ('devnet', 4663, ${checkpoint})`;
  await sql`insert into ponder_sync.blocks values (4663, ${checkpointBlock.toString()}, ${cachedHash})`;
}

const schemaExists = async (sql: postgres.Sql) => (await sql`select 1 from information_schema.schemata where schema_name = 'ponder'`).length > 0;

describe("resetIndexForNewDevnet on a reused devnet", () => {
  it("keeps an index of the same chain and drops one that went past it", async () => {
    const params = { databaseUrl: database.url, rpcUrl: anvil.url, schema: "ponder", savedChain: true };
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      expect(await resetIndexForNewDevnet(params)).toBe(true); // first sight of this genesis
      const snapshot = await anvil.testClient.snapshot();
      await anvil.testClient.mine({ blocks: 4 });
      const block4 = await anvil.publicClient.getBlock({ blockNumber: 4n });
      await writeIndex(sql, 4n, block4.hash);
      expect(await resetIndexForNewDevnet(params)).toBe(false);
      expect(await schemaExists(sql)).toBe(true);

      // The chain as a killed devnet's file had it (block 2), then other blocks 3-4: the same genesis.
      await anvil.testClient.revert({ id: snapshot });
      await anvil.testClient.mine({ blocks: 2 });
      await anvil.testClient.setNextBlockTimestamp({ timestamp: block4.timestamp + 100n });
      await anvil.testClient.mine({ blocks: 2 });
      expect((await anvil.publicClient.getBlock({ blockNumber: 4n })).hash).not.toBe(block4.hash);
      // Without a saved chain (DEVNET_STATE_FILE unset) the genesis alone decides: Ponder handles reorgs.
      expect(await resetIndexForNewDevnet({ ...params, savedChain: false })).toBe(false);
      expect(await resetIndexForNewDevnet(params)).toBe(true);
      expect(await schemaExists(sql)).toBe(false);
    } finally {
      await sql.end();
    }
  });
});
