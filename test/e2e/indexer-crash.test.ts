// A crash mid-backfill: the indexer is killed with SIGKILL (its whole process group) part way through
// indexing the seeded history, then started again with the same environment. It resumes from its
// checkpoint and ends with the same tables, hash for hash, as an indexer that ran without interruption.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainHead, indexedBlock, startIndexer, tableHashes, tableRows, waitIndexedAt, type Indexer } from "../helpers/indexer.js";
import { readJson, startStack, waitFor, type StartedStack } from "../helpers/stack.js";

let stack: StartedStack;
const indexers: Indexer[] = [];

beforeAll(async () => {
  // A still devnet with three days of history and a database, and no indexer yet.
  stack = await startStack({ historyDays: 3, simIntervalMs: 3_600_000, indexer: false });
}, 240_000);

afterAll(async () => {
  await Promise.all(indexers.map((i) => i.stop()));
  await stack?.stop();
}, 60_000);

describe("the indexer after a crash", () => {
  it("resumes from its checkpoint after SIGKILL mid-backfill and ends with the tables of an uninterrupted run", async () => {
    const head = await chainHead(stack.rpcUrl);
    const { startBlock } = readJson<{ startBlock: number }>(stack.deploymentsFile);

    // Kill the indexer once its checkpoint is 30-60% of the way through the history (/status, every 250 ms).
    // One RPC lane: Ponder's per-URL rate limit keeps this short backfill slow enough to stop part way.
    const crashing = await startIndexer(stack, { extraEnv: { INDEXER_RPC_LANES: "1" } });
    indexers.push(crashing);
    const progress = async () => {
      const block = await indexedBlock(crashing.ponderUrl).catch(() => undefined);
      return block === undefined ? 0 : (block - startBlock) / (head - startBlock);
    };
    let atKill = 0;
    await waitFor("the backfill at 30%", async () => (atKill = await progress()) >= 0.3, 120_000, crashing.log);
    await crashing.kill();
    const rowsAtKill = await tableRows(stack.databaseUrl, crashing.schema);
    expect(atKill).toBeLessThanOrEqual(0.6);
    expect(rowsAtKill).toBeGreaterThan(0);

    // Started again as it was: it waits for the dead one's schema lock, then resumes from its checkpoint.
    const restarted = await startIndexer(stack, { env: crashing.env }, crashing.log);
    indexers.push(restarted);
    await waitIndexedAt(restarted.ponderUrl, head, 120_000, crashing.log);
    expect(crashing.log.join("\n")).toContain("Detected crash recovery");

    // An uninterrupted indexer over the same chain, from scratch, into a schema of its own. (It shares
    // Ponder's cache of the chain's data in the database, which makes it quicker, not different.)
    const plain = await startIndexer(stack, { schema: "uninterrupted", viewsSchema: "uninterrupted_views" });
    indexers.push(plain);
    await waitIndexedAt(plain.ponderUrl, head, 90_000, plain.log);

    const [resumed, uninterrupted] = await Promise.all([tableHashes(stack.databaseUrl, crashing.schema), tableHashes(stack.databaseUrl, plain.schema)]);
    expect(resumed).toEqual(uninterrupted);
    expect(uninterrupted.activity!.rows).toBeGreaterThan(0);
  }, 240_000);
});
