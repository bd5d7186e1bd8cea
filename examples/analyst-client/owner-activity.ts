import { createClient, desc, eq } from "@ponder/client";
import * as schema from "./schema.js";

const client = createClient(`${process.env.INDEXER_URL ?? "http://localhost:42069"}/sql`, { schema });
const owner = process.argv[2] as `0x${string}`; // checksummed or not: the client lowercases it

const rows = await client.db.select().from(schema.activity).where(eq(schema.activity.owner, owner)).orderBy(desc(schema.activity.position)).limit(20);
console.log(rows);
