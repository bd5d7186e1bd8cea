// The indexer on PGlite (DATABASE_KIND=pglite), as a user may ask for it: no Postgres at all. It indexes
// the run's devnet into a directory of its own and serves the same projections over GraphQL as the
// Postgres index of the same chain.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { projectionsSql, startIndexer, type Indexer } from "../helpers/indexer.js";
import { ponderReady, waitFor } from "../helpers/stack.js";

const stack = inject("stack");
const directory = mkdtempSync(join(tmpdir(), "agent-pglite-"));
let indexer: Indexer | undefined;

afterAll(async () => {
  await indexer?.stop();
  rmSync(directory, { recursive: true, force: true });
}, 60_000);

async function graphql<T>(ponderUrl: string, query: string): Promise<T> {
  const res = await fetch(`${ponderUrl}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (!body.data) throw new Error(`graphql: ${JSON.stringify(body.errors)}`);
  return body.data;
}

describe("the indexer on PGlite", () => {
  it("indexes the devnet with no Postgres and serves the same tokens, vaults and baskets", async () => {
    // A Postgres URL where nothing listens: the PGlite indexer must not need one.
    indexer = await startIndexer(stack, {
      schema: "pglite_index",
      viewsSchema: "pglite_views",
      extraEnv: { DATABASE_KIND: "pglite", PGLITE_DIRECTORY: directory, DATABASE_URL: "postgresql://postgres@127.0.0.1:5499/none" },
    });
    await waitFor("the PGlite indexer ready", () => ponderReady(indexer!.ponderUrl), 240_000, indexer.log);

    type Page<T> = { items: T[] };
    const got = await graphql<{
      tokens: Page<{ address: string; symbol: string }>;
      vaults: Page<{ address: string; family: string }>;
      baskets: Page<{ address: string }>;
    }>(
      indexer.ponderUrl,
      "{ tokens(limit: 1000) { items { address symbol } } vaults(limit: 1000) { items { address family } } baskets(limit: 1000) { items { address } } }",
    );
    const sql = projectionsSql(stack.databaseUrl);
    try {
      const tokens = await sql<{ address: string; symbol: string }[]>`select address, symbol from ${sql(stack.schema)}.token`;
      const vaults = await sql<{ address: string; family: string }[]>`select address, family from ${sql(stack.schema)}.vault`;
      const baskets = await sql<{ address: string }[]>`select address from ${sql(stack.schema)}.basket`;
      const sorted = <T extends { address: string }>(xs: T[]) =>
        [...xs].map((x) => ({ ...x, address: x.address.toLowerCase() })).sort((a, b) => a.address.localeCompare(b.address));
      expect(tokens.length).toBeGreaterThan(10);
      expect(sorted(got.tokens.items)).toEqual(sorted([...tokens]));
      expect(sorted(got.vaults.items)).toEqual(sorted([...vaults]));
      expect(sorted(got.baskets.items)).toEqual(sorted([...baskets]));
    } finally {
      await sql.end();
    }
  }, 300_000);
});
