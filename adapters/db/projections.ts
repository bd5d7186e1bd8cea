// Reading the indexer's projections: row types come from ponder.schema.ts, queries go through the
// views schema (stable across reindexes), and numeric(78) amounts arrive as bigint.
import { CamelCasePlugin, Kysely } from "kysely";
import postgres, { type Sql } from "postgres";
import type * as schema from "../../ponder.schema.js";
import { assertSchemaName } from "./api-schema.js";
import { reconnectBackoff } from "./connect.js";
import { PostgresJsDialect } from "./postgres-js-dialect.js";
import type { ReadRoute } from "./read-targets.js";
import { ReadStatementState } from "./reads/statement-state.js";

type Row<T extends { $inferSelect: unknown }> = T["$inferSelect"];

/** Every projection, by its camelCase name (tables are snake_case in Postgres). */
export type Projections = {
  token: Row<typeof schema.token>;
  market: Row<typeof schema.market>;
  poolSwap: Row<typeof schema.poolSwap>;
  candle10m: Row<typeof schema.candle10m>;
  candle1h: Row<typeof schema.candle1h>;
  routerSwap: Row<typeof schema.routerSwap>;
  executedCall: Row<typeof schema.executedCall>;
  activity: Row<typeof schema.activity>;
  vault: Row<typeof schema.vault>;
  vaultSnapshot: Row<typeof schema.vaultSnapshot>;
  vaultPosition: Row<typeof schema.vaultPosition>;
  depositRequest: Row<typeof schema.depositRequest>;
  withdrawalRequest: Row<typeof schema.withdrawalRequest>;
  limitOrder: Row<typeof schema.limitOrder>;
  grid: Row<typeof schema.grid>;
  ladder: Row<typeof schema.ladder>;
  ladderLeg: Row<typeof schema.ladderLeg>;
  agentAccount: Row<typeof schema.agentAccount>;
  basket: Row<typeof schema.basket>;
  basketBalance: Row<typeof schema.basketBalance>;
};

const NUMERIC_OID = 1700;

/** A postgres.js pool whose numeric columns (Ponder's bigint) parse to bigint. */
export function createProjectionsPostgres({
  url,
  max = 10,
  connectTimeout = 5,
  applicationName = "agent-api-reads",
}: {
  url: string;
  max?: number;
  connectTimeout?: number;
  applicationName?: string;
}): Sql {
  return postgres(url, {
    max,
    connect_timeout: connectTimeout,
    backoff: reconnectBackoff,
    idle_timeout: 60,
    onnotice: () => {},
    connection: { application_name: applicationName },
    types: {
      numeric: { to: NUMERIC_OID, from: [NUMERIC_OID], serialize: (v: bigint | string | number) => v.toString(), parse: (v: string) => BigInt(v) },
    },
  });
}

/**
 * A read-only Kysely over the projections in `viewsSchema`. With `route` (reads on standbys), each query
 * runs on the route's pick, `sql` being the primary's pool.
 */
export function createProjectionsDb({ sql, viewsSchema, route }: { sql: Sql; viewsSchema: string; route?: ReadRoute }): Kysely<Projections> {
  assertSchemaName(viewsSchema);
  const readStatements = new ReadStatementState(viewsSchema);
  return new Kysely<Projections>({
    dialect: new PostgresJsDialect({ sql, endOnDestroy: true, route, readStatements }),
    plugins: [new CamelCasePlugin()],
  }).withSchema(viewsSchema);
}
