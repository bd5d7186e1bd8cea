// The API's own tables. Migrations are factories of the schema name, so tests and replicas can
// use any schema; they run in one transaction (Postgres has transactional DDL).
import { sql, type Kysely, type Migration } from "kysely";

export function initial(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      const now = sql`now()`;

      await s
        .createTable("sign_request")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("bundle", "jsonb", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
        .addColumn("expires_at", "timestamptz", (c) => c.notNull())
        .execute();
      await s.createIndex("sign_request_expires_at_idx").on("sign_request").column("expires_at").execute();

      await s
        .createTable("filing")
        .addColumn("id", "text", (c) => c.primaryKey())
        // Filings outlive their sign requests (expired ones may be swept).
        .addColumn("sign_request_id", "text", (c) => c.references("sign_request.id").onDelete("set null"))
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("agent_tag", "text")
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("steps", "jsonb", (c) => c.notNull())
        .addColumn("chain_price", "numeric")
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
        .execute();
      await s.createIndex("filing_owner_created_at_idx").on("filing").columns(["owner", "created_at"]).execute();
      await s.createIndex("filing_sign_request_id_idx").on("filing").column("sign_request_id").execute();

      await s
        .createTable("activity_cursor")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("position", "numeric", (c) => c.notNull())
        .addColumn("block_hash", "text")
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
        .execute();
      await s.createIndex("activity_cursor_created_at_idx").on("activity_cursor").column("created_at").execute();

      await s
        .createTable("session_challenge")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("message", "text", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
        .addColumn("expires_at", "timestamptz", (c) => c.notNull())
        .addColumn("used_at", "timestamptz")
        .execute();
      await s.createIndex("session_challenge_expires_at_idx").on("session_challenge").column("expires_at").execute();

      await s
        .createTable("session")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
        .addColumn("expires_at", "timestamptz", (c) => c.notNull())
        .execute();
      await s.createIndex("session_expires_at_idx").on("session").column("expires_at").execute();

      await s
        .createTable("scan_result")
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("payload", "jsonb", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
        .addPrimaryKeyConstraint("scan_result_pkey", ["kind", "key"])
        .execute();
    },

    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      for (const table of ["scan_result", "session", "session_challenge", "activity_cursor", "filing", "sign_request"]) {
        await s.dropTable(table).ifExists().execute();
      }
    },
  };
}
