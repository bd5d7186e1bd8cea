import { count, createClient, desc, eq, gte, sum } from "@ponder/client";
import * as schema from "./schema.js";

const client = createClient(`${process.env.INDEXER_URL ?? "http://localhost:42069"}/sql`, { schema });
const dayAgo = Math.floor(Date.now() / 1000) - 86400;

const rows = await client.db
  .select({ symbol: schema.token.symbol, swaps: count(), volumeUsdg: sum(schema.poolSwap.volumeUsdg) })
  .from(schema.poolSwap)
  .innerJoin(schema.token, eq(schema.token.address, schema.poolSwap.token))
  .where(gte(schema.poolSwap.timestamp, dayAgo))
  .groupBy(schema.token.symbol)
  .orderBy(desc(sum(schema.poolSwap.volumeUsdg)))
  .limit(10);
console.log(rows);
