// The report card's hit rate counts every graded action on record, not only the newest 500 the card
// lists, and never an unsigned filing. Real Postgres; filings and the grading job's rows written directly.
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVaultDeposit } from "../../../domain/bundles/index.js";
import { wilsonLowerBound } from "../../../domain/grading/wilson.js";
import type { Database } from "../../../adapters/db/api-schema.js";
import { CARD_ACTION_LIMIT, readReportCard } from "../../../usecases/report-card/card.js";
import { connectRedis, createTestDatabase, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "../../api/support.js";
import { fetchOpenApi, responseValidator } from "../../helpers/openapi-validate.js";

const owner = "0x1111111111111111111111111111111111111111" as Address;
const vault = "0x2222222222222222222222222222222222222222" as Address;
const usdg = "0x3333333333333333333333333333333333333333" as Address;
const deposit = buildVaultDeposit({ family: "merged", owner, vault, usdg, assets: 10n, minShares: 0n });
const steps = deposit.steps.map((s) => ({ to: s.to, data: s.data, value: "0" }));
const DAY = 86_400_000;
const prefix = randomPrefix();

let database: TestDatabase;
let db: Kysely<Database>;
let redis: Redis;
const now = new Date("2025-06-01T12:00:00.000Z");
let n = 0;

type Row = { agent: string | null; at: number; state: "graded" | "waiting" | "unsigned"; hit: boolean | null; signed: boolean };

async function file(rows: Row[]): Promise<void> {
  const made = rows.map((r) => ({ ...r, id: `filing-${String(n++).padStart(5, "0")}` }));
  await db
    .insertInto("filing")
    .values(made.map((r) => ({ id: r.id, owner: owner.toLowerCase(), agent_tag: r.agent, kind: deposit.kind, steps, created_at: new Date(r.at) })))
    .execute();
  await db
    .insertInto("report_action")
    .values(
      made.map((r) => ({
        filing_id: r.id,
        owner: owner.toLowerCase(),
        state: r.state,
        reason: r.state === "waiting" ? "week" : null,
        tx_hash: r.signed ? `0x${r.id.slice(7).padStart(64, "0")}` : null,
        executed_at: r.signed ? new Date(r.at + 60_000) : null,
        hit: r.hit,
        note: "test",
        figures: {},
        graded_at: r.state === "graded" ? new Date(r.at + 7 * DAY) : null,
      })),
    )
    .execute();
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  redis = await connectRedis();
  const old = now.getTime() - 60 * DAY;
  // 40 graded actions of agent "old", 30 hits: all older than the 500 the card lists.
  await file(Array.from({ length: 40 }, (_, i) => ({ agent: "old", at: old + i * 60_000, state: "graded" as const, hit: i < 30, signed: true })));
  // A forged graded row without a transaction (never signed) and unsigned filings: never counted.
  await file(Array.from({ length: 5 }, (_, i) => ({ agent: "old", at: old + (100 + i) * 60_000, state: "graded" as const, hit: false, signed: false })));
  await file(Array.from({ length: 5 }, (_, i) => ({ agent: "old", at: old + (200 + i) * 60_000, state: "unsigned" as const, hit: null, signed: false })));
  // The newest 500: 497 waiting, 3 graded hits of agent "new".
  const recent = now.getTime() - 20 * DAY;
  await file(
    Array.from({ length: CARD_ACTION_LIMIT }, (_, i) => ({
      agent: "new",
      at: recent + i * 60_000,
      state: i < 3 ? ("graded" as const) : ("waiting" as const),
      hit: i < 3 ? true : null,
      signed: true,
    })),
  );
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  await database?.drop();
});

describe("the report card's hit-rate window", () => {
  it("counts every graded action on record, beyond the 500 listed, and never an unsigned filing", async () => {
    for (const view of ["public", "private"] as const) {
      const card = await readReportCard(db, { owner, view, now });
      expect(card.agents.flatMap((a) => a.actions)).toHaveLength(CARD_ACTION_LIMIT);
      expect(card.hitRate).toMatchObject({ hits: 33, misses: 10, lower90: wilsonLowerBound({ hits: 33, misses: 10 }) });
      const old = card.agents.find((a) => a.name === "old")!;
      expect(old).toMatchObject({ ready: true, graded: 40, actions: [], hitRate: { hits: 30, misses: 10 } });
      expect(card.agents.find((a) => a.name === "new")).toMatchObject({ ready: false, graded: 3, hitRate: null });
    }
    const one = await readReportCard(db, { owner, view: "public", agent: "old", now });
    expect(one.hitRate).toMatchObject({ hits: 30, misses: 10 });
    expect(one.agents.map((a) => a.name)).toEqual(["old"]);
  });

  it("the route answers it as the OpenAPI document describes", async () => {
    const t = testApp({ db, redis, rateLimit: { keyPrefix: `${prefix}:rl` } });
    const validator = responseValidator(await fetchOpenApi(t.app));
    const path = `/v1/agent/report-card/${owner}`;
    const res = await t.app.request(path);
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(validator.errors("get", path, 200, body)).toEqual([]);
    expect(body.data.hitRate).toMatchObject({ hits: 33, misses: 10 });
  });
});
