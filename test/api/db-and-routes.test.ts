// The API's own schema (migrations, the dialect) and the routes over it: sign requests and /ready.
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createDb, migrateToLatest } from "../../adapters/db/connect.js";
import { createSignRequest, SIGN_REQUEST_TTL_MS } from "../../adapters/db/sign-requests.js";
import { DEAD_POSTGRES_URL, json, testApp, useApiFixture } from "./support.js";

const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const walletSendCalls = {
  version: "2.0.0",
  chainId: "0x1237",
  from: OWNER,
  atomicRequired: false,
  calls: [{ to: "0x5FbDB2315678afecb367f032d93F642f64180aa3", data: "0x095ea7b3", value: "0x0" }],
};

const api = useApiFixture();

const tables = async (schema: string) =>
  (
    await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = ${schema} order by table_name`.execute(api.db)
  ).rows.map((r) => r.table_name);

describe("migrations", () => {
  it("create the API's tables in the named schema", async () => {
    expect(await tables("agent_api")).toEqual([
      "activity_cursor",
      "filing",
      "grading_mark",
      "grading_pass",
      "kysely_migration",
      "kysely_migration_lock",
      "report_action",
      "scan_result",
      "session",
      "session_challenge",
      "sign_request",
      "strategy_pick",
      "strategy_run",
    ]);
  });

  it("are idempotent", async () => {
    const again = await migrateToLatest(api.db, "agent_api");
    expect(again.error).toBeUndefined();
    expect(again.results).toEqual([]);
  });

  it("are safe when several replicas migrate a new schema at once", async () => {
    const dbs = [1, 2, 3].map(() => createDb({ url: api.database.url, schema: "agent_api_race", max: 2 }));
    try {
      const results = await Promise.all(dbs.map((d) => migrateToLatest(d, "agent_api_race")));
      // Every migration is applied exactly once, by whichever replica got the lock.
      const applied = results
        .flatMap((r) => r.results ?? [])
        .filter((r) => r.status === "Success")
        .map((r) => r.migrationName);
      expect(applied.sort()).toEqual([...new Set(applied)].sort());
      expect(applied.length).toBeGreaterThanOrEqual(1);
      expect(await tables("agent_api_race")).toContain("sign_request");
    } finally {
      await Promise.all(dbs.map((d) => d.destroy()));
    }
  });

  it("stores jsonb as values, numeric as decimal strings, and rolls transactions back", async () => {
    await api.db
      .insertInto("scan_result")
      .values({ kind: "grid", key: "0xabc", payload: { lines: [1, 2], big: "12" } })
      .execute();
    await api.db.insertInto("activity_cursor").values({ id: "c1", owner: OWNER.toLowerCase(), position: 12345678901234567890n, block_hash: null }).execute();
    expect(await api.db.selectFrom("scan_result").select("payload").where("kind", "=", "grid").executeTakeFirst()).toEqual({
      payload: { lines: [1, 2], big: "12" },
    });
    expect((await api.db.selectFrom("activity_cursor").select("position").where("id", "=", "c1").executeTakeFirstOrThrow()).position).toBe(
      "12345678901234567890",
    );

    await expect(
      api.db.transaction().execute(async (trx) => {
        await trx.insertInto("activity_cursor").values({ id: "c2", owner: "x", position: 1 }).execute();
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await api.db.selectFrom("activity_cursor").select("id").where("id", "=", "c2").executeTakeFirst()).toBeUndefined();
  });
});

describe("GET /v1/agent/sign-requests/{id}", () => {
  it("answers the stored bundle until it expires, then 404 (simulated clock)", async () => {
    const { app, clock, log } = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl:sign` } });
    const stored = await createSignRequest(api.db, {
      owner: OWNER,
      kind: "vault-deposit",
      bundle: { kind: "vault-deposit", steps: walletSendCalls.calls, params: { assets: "1000000" }, walletSendCalls },
      now: clock.now(),
    });
    expect(stored.id).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const found = await app.request(`/v1/agent/sign-requests/${stored.id}`);
    expect(found.status).toBe(200);
    expect(await json(found)).toEqual({
      data: {
        id: stored.id,
        kind: "vault-deposit",
        owner: OWNER,
        steps: walletSendCalls.calls,
        params: { assets: "1000000" },
        walletSendCalls,
        createdAt: "2025-06-01T12:00:00.000Z",
        expiresAt: "2025-06-01T12:10:00.000Z",
      },
    });

    clock.advance(SIGN_REQUEST_TTL_MS - 1);
    expect((await app.request(`/v1/agent/sign-requests/${stored.id}`)).status).toBe(200);
    clock.advance(1);
    const expired = await app.request(`/v1/agent/sign-requests/${stored.id}`);
    expect(expired.status).toBe(404);
    expect(await json(expired)).toEqual({ error: "unknown or expired sign request", code: "NOT_FOUND" });

    // The id is the sign link's secret: never in a log line.
    expect(log.lines.filter((l) => l.msg === "request").map((l) => l.path)).toContain("/v1/agent/sign-requests/:id");
    expect(log.text()).not.toContain(stored.id);
  });

  it("answers 404 for unknown and malformed ids alike", async () => {
    const { app } = testApp({ db: api.db, redis: api.redis, rateLimit: { keyPrefix: `${api.prefix}:rl:sign2` } });
    for (const id of ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "x", "'; drop table sign_request; --"]) {
      const response = await app.request(`/v1/agent/sign-requests/${encodeURIComponent(id)}`);
      expect(response.status).toBe(404);
      expect((await json(response)).error).toBe("unknown or expired sign request");
    }
  });
});

describe("probes", () => {
  it("/health is 200 while the process is up", async () => {
    const { app } = testApp({ db: api.db, redis: api.redis });
    const response = await app.request("/health");
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { status: "up" } });
  });

  it("/ready is 503 UNAVAILABLE until indexerReady() is true", async () => {
    const { app, setIndexerReady, clock } = testApp({ db: api.db, redis: api.redis });
    setIndexerReady(false);
    const waiting = await app.request("/ready");
    expect(waiting.status).toBe(503);
    expect(await json(waiting)).toEqual({ error: "not ready: the indexer is catching up", code: "UNAVAILABLE" });
    setIndexerReady(true);
    // The state is checked at most once a second (issue 32: /ready is not limited, so it is cheap).
    expect((await app.request("/ready")).status).toBe(503);
    clock.advance(1000);
    const ready = await app.request("/ready");
    expect(ready.status).toBe(200);
    expect(await json(ready)).toEqual({ data: { status: "ready", postgres: true, indexer: true } });
  });

  it("/ready runs one readiness check a second however many probes arrive", async () => {
    let checks = 0;
    const { app, clock } = testApp({ db: api.db, redis: api.redis, indexerReady: () => (checks++, true) });
    const answers = await Promise.all(Array.from({ length: 200 }, () => app.request("/ready")));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    for (let i = 0; i < 100; i++) expect((await app.request("/ready")).status).toBe(200);
    expect(checks).toBe(1);
    clock.advance(1000);
    await app.request("/ready");
    expect(checks).toBe(2);
  });

  it("/ready is 503 while Postgres does not answer", async () => {
    const deadDb = createDb({ url: DEAD_POSTGRES_URL, connectTimeout: 1 });
    try {
      const { app } = testApp({ db: deadDb, redis: api.redis, indexerReady: () => true });
      const response = await app.request("/ready");
      expect(response.status).toBe(503);
      expect((await json(response)).error).toBe("not ready: Postgres does not answer");
    } finally {
      await deadDb.destroy();
    }
  });
});
