// Each stored scan names the chain it was made on (its genesis block hash), so that after a devnet
// restart (a new chain with the same id) the previous chain's scans are never served.
import type { Kysely, Migration } from "kysely";

export function scanChain(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.withSchema(schema).alterTable("scan_result").addColumn("chain", "text").execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.withSchema(schema).alterTable("scan_result").dropColumn("chain").execute();
    },
  };
}
