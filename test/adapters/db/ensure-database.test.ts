// `npm start` starts the API and a worker at once; on a fresh machine both create the database. Every
// racer must come through, whichever of Postgres's two answers (42P04, or 23505 from the catalog's
// unique index when both passed the existence check at once) the losers get.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { ensureDatabase } from "../../../adapters/db/ensure-database.js";

const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const made: string[] = [];

afterAll(async () => {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  for (const name of made) await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

describe("ensureDatabase", () => {
  it("creates a missing database once, however many processes race to", async () => {
    for (let round = 0; round < 5; round++) {
      const name = `agent_test_race_${randomBytes(5).toString("hex")}`;
      made.push(name);
      const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
      await expect(Promise.all(Array.from({ length: 6 }, () => ensureDatabase(url)))).resolves.toHaveLength(6);
      const sql = postgres(url, { max: 1 });
      expect((await sql`select current_database() as name`)[0]!.name).toBe(name);
      await sql.end();
    }
  });
});
