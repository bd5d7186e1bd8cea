// Retention against real Postgres with a simulated clock: the purge job deletes expired challenges and
// sessions, sign requests a day past expiry, cursors past 14 days, never-matched filings after 30 days and
// strategy-finder runs after 90 days, in bounded batches, and keeps every live row and every matched filing.
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../adapters/db/api-schema.js";
import { purgeExpired, RETENTION } from "../../workers/processors/purge.js";
import { createTestDatabase, migratedDb, testClock, type TestDatabase } from "../api/support.js";

const DAY = 86_400_000;
const OWNER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
let database: TestDatabase;
let db: Kysely<Database>;
const clock = testClock();
const ago = (ms: number) => new Date(clock.now().getTime() - ms);

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

const ids = async (table: "session_challenge" | "sign_request" | "activity_cursor" | "filing") =>
  (await db.selectFrom(table).select("id").orderBy("id").execute()).map((r) => r.id);

describe("retention purge", () => {
  it("removes expired rows and keeps live ones", async () => {
    const challenge = (id: string, expiresAt: Date) => ({ id, owner: OWNER, message: "m", created_at: ago(DAY), expires_at: expiresAt });
    await db
      .insertInto("session_challenge")
      .values([challenge("c-expired", ago(1)), challenge("c-live", ago(-60_000))])
      .execute();
    await db
      .insertInto("session")
      .values([
        { token_hash: "s-expired", owner: OWNER, expires_at: ago(1000) },
        { token_hash: "s-live", owner: OWNER, expires_at: ago(-60_000) },
      ])
      .execute();
    const signRequest = (id: string, expiresAt: Date) => ({ id, owner: OWNER, kind: "swap", bundle: {}, created_at: ago(3 * DAY), expires_at: expiresAt });
    await db
      .insertInto("sign_request")
      .values([signRequest("r-old", ago(RETENTION.signRequestAfterExpiryMs + 1000)), signRequest("r-recent", ago(60_000)), signRequest("r-live", ago(-60_000))])
      .execute();
    await db
      .insertInto("activity_cursor")
      .values([
        { id: "k-old", owner: OWNER, position: "1", created_at: ago(14 * DAY + 1000) },
        { id: "k-live", owner: OWNER, position: "1", created_at: ago(13 * DAY) },
      ])
      .execute();
    const filing = (id: string, createdAt: Date, signRequestId: string | null = null) => ({
      id,
      sign_request_id: signRequestId,
      owner: OWNER,
      kind: "swap",
      steps: [],
      created_at: createdAt,
    });
    await db
      .insertInto("filing")
      .values([
        filing("f-unmatched-old", ago(RETENTION.unmatchedFilingMs + 1000)),
        filing("f-unmatched-recent", ago(RETENTION.unmatchedFilingMs - DAY), "r-old"),
        filing("f-matched-old", ago(400 * DAY)),
      ])
      .execute();
    const action = (filingId: string, txHash: string | null) => ({
      filing_id: filingId,
      owner: OWNER,
      state: txHash ? "graded" : "not-graded",
      reason: txHash ? null : "other",
      tx_hash: txHash,
      note: "n",
      figures: {},
    });
    await db
      .insertInto("report_action")
      .values([action("f-unmatched-old", null), action("f-matched-old", "0xabc")])
      .execute();
    const run = (createdAt: Date) => ({
      identity_kind: "wallet",
      identity_value: OWNER,
      token: "0x1",
      strategy: "grid",
      input: {},
      summary: {},
      created_at: createdAt,
    });
    await db
      .insertInto("strategy_run")
      .values([run(ago(RETENTION.strategyRunMs + 1000)), run(ago(RETENTION.strategyRunMs - DAY))])
      .execute();

    const summary = await purgeExpired({ db, now: clock.now });
    expect(summary).toEqual({ challenges: 1, sessions: 1, signRequests: 1, cursors: 1, filings: 1, strategyRuns: 1 });
    expect(await ids("session_challenge")).toEqual(["c-live"]);
    expect((await db.selectFrom("session").select("token_hash").execute()).map((r) => r.token_hash)).toEqual(["s-live"]);
    expect(await ids("sign_request")).toEqual(["r-live", "r-recent"]);
    expect(await ids("activity_cursor")).toEqual(["k-live"]);
    // Graded actions are the record: the matched filing stays, however old; the unmatched one's action went with it.
    expect(await ids("filing")).toEqual(["f-matched-old", "f-unmatched-recent"]);
    expect((await db.selectFrom("report_action").select("filing_id").execute()).map((r) => r.filing_id)).toEqual(["f-matched-old"]);
    // A filing outlives its sign request.
    expect(
      (await db.selectFrom("filing").select("sign_request_id").where("id", "=", "f-unmatched-recent").executeTakeFirstOrThrow()).sign_request_id,
    ).toBeNull();
    expect(await db.selectFrom("strategy_run").select("id").execute()).toHaveLength(1);

    // A day later on the simulated clock, every row kept has outlived its retention but the matched filing.
    clock.advance(RETENTION.signRequestAfterExpiryMs + 2 * 60_000);
    const later = await purgeExpired({ db, now: clock.now });
    expect(later).toEqual({ challenges: 1, sessions: 1, signRequests: 2, cursors: 1, filings: 1, strategyRuns: 1 });
    expect(await ids("sign_request")).toEqual([]);
    expect(await ids("filing")).toEqual(["f-matched-old"]);
  });

  it("deletes in bounded batches: a run stops at its bound and the next one goes on", async () => {
    const expired = Array.from({ length: 5 }, (_, i) => ({ token_hash: `b-${i}`, owner: OWNER, expires_at: ago(1000) }));
    await db.insertInto("session").values(expired).execute();
    expect((await purgeExpired({ db, now: clock.now, batch: 2, maxBatches: 2 })).sessions).toBe(4);
    expect((await purgeExpired({ db, now: clock.now, batch: 2, maxBatches: 2 })).sessions).toBe(1);
    expect(await db.selectFrom("session").select("token_hash").where("token_hash", "like", "b-%").execute()).toEqual([]);
  });
});
