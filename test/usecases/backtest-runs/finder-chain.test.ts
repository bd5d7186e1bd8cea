// The strategy finder's track record is tied to the chain it was made on, as the scans are: picks made on
// another chain (before a devnet restart, or on another deployment) are never listed or summed.
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../adapters/db/api-schema.js";
import { trackRecordAnswer } from "../../../usecases/backtest-runs/finder-answers.js";
import { createTestDatabase, migratedDb, type TestDatabase } from "../../api/support.js";

let database: TestDatabase;
let db: Kysely<Database>;
const OLD = `0x${"a".repeat(64)}`;
const NEW = `0x${"b".repeat(64)}`;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  const pick = (id: string, chain: string | null, returnPct: number) => ({
    id,
    day: "2026-01-01",
    rank: 1,
    style: "grid",
    token: "0x4444444444444444444444444444444444444444",
    symbol: "TKN",
    period_days: 7,
    params: { buyPrice: 1, sellPrice: 2 },
    board_return_pct: 3,
    start_price: 1.5,
    started_at: new Date("2026-01-01T00:00:00Z"),
    paper: { returnPct, holdReturnPct: 0, trades: 2, followedUntil: "2026-01-08T00:00:00.000Z" },
    done: true,
    chain,
  });
  await db
    .insertInto("strategy_pick")
    .values([pick("old", OLD, -50), pick("new", NEW, 10)])
    .execute();
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

describe("the finder's track record", () => {
  it("lists and sums only the running chain's picks", async () => {
    const record = await trackRecordAnswer(db, NEW.toUpperCase().replace("0X", "0x"));
    expect(record.picks.map((p) => p.paper?.returnPct)).toEqual([10]);
    expect(record.summary).toMatchObject({ picks: 1, finished: 1, positive: 1 });
    const none = await trackRecordAnswer(db, `0x${"c".repeat(64)}`);
    expect([none.picks.length, none.summary.picks]).toEqual([0, 0]);
  });
});
