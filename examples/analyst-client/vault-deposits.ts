import { and, count, createClient, eq, gte, sum } from "@ponder/client";
import * as schema from "./schema.js";

const client = createClient(`${process.env.INDEXER_URL ?? "http://localhost:42069"}/sql`, { schema });
const vault = process.argv[2] as `0x${string}`;
const weekAgo = Math.floor(Date.now() / 1000) - 7 * 86400;

const rows = await client.db
  .select({ state: schema.depositRequest.state, requests: count(), assets: sum(schema.depositRequest.assets) })
  .from(schema.depositRequest)
  .where(and(eq(schema.depositRequest.vault, vault), gte(schema.depositRequest.requestedAt, weekAgo)))
  .groupBy(schema.depositRequest.state);
console.log(rows);
