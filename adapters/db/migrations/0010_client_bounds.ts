// Who made each sign request and each strategy-finder run (the rate limit's client key), so what one client
// can store is bounded (issue 32): live sign requests and runs of the last day are counted per client.
import type { Kysely, Migration } from "kysely";

export function clientBounds(schema: string): Migration {
  return {
    async up(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.alterTable("sign_request").addColumn("client", "text").execute();
      await s.alterTable("strategy_run").addColumn("client", "text").execute();
      await s
        .createIndex("sign_request_client_live")
        .on("sign_request")
        .columns(["client", "expires_at"])
        .where((eb) => eb("client", "is not", null))
        .execute();
      await s
        .createIndex("strategy_run_client_recent")
        .on("strategy_run")
        .columns(["client", "created_at"])
        .where((eb) => eb("client", "is not", null))
        .execute();
    },
    async down(db: Kysely<any>) {
      const s = db.schema.withSchema(schema);
      await s.dropIndex("strategy_run_client_recent").ifExists().execute();
      await s.dropIndex("sign_request_client_live").ifExists().execute();
      await s.alterTable("strategy_run").dropColumn("client").execute();
      await s.alterTable("sign_request").dropColumn("client").execute();
    },
  };
}
