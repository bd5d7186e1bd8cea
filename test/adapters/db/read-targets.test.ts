// Reads on a streaming standby (adapters/db/read-targets.ts), against a real primary and standby of the
// test's own (test/helpers/pg-standby.ts): every read sees what the primary had committed when it began,
// on the standby while it keeps up; with replay paused the reads go to the primary, the lag shows, and
// once resumed they come back to the standby.
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLsn, ReadTargets } from "../../../adapters/db/read-targets.js";
import { canMakeStandby, startStandbyPair, type StandbyPair } from "../../helpers/pg-standby.js";

const MAX_LAG_MS = 600;
let pair: StandbyPair;
let writer: Sql;
let primaryPool: Sql;
let standbyPool: Sql;
let targets: ReadTargets;

const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe.skipIf(!canMakeStandby())("reads on a streaming standby", () => {
  beforeAll(async () => {
    pair = await startStandbyPair();
    writer = postgres(pair.primary.adminUrl, { max: 1, onnotice: () => {} });
    // Async commit, as the indexer's: a commit is visible before its WAL is written.
    await writer`create table t (n int not null)`;
    primaryPool = postgres(pair.primary.adminUrl, { max: 4, onnotice: () => {} });
    standbyPool = postgres(pair.standby.adminUrl, { max: 4, onnotice: () => {} });
    targets = new ReadTargets({
      primary: primaryPool,
      primaryMonitor: postgres(pair.primary.adminUrl, { max: 1, onnotice: () => {} }),
      standbys: [{ name: "standby", pool: standbyPool, monitor: postgres(pair.standby.adminUrl, { max: 1, onnotice: () => {} }) }],
      maxLagMs: MAX_LAG_MS,
      pollMs: 50,
    }).start();
    await until("standby serving", () => targets.status()[0]!.serving);
  }, 60_000);

  afterAll(async () => {
    await targets?.close();
    await Promise.allSettled([writer?.end(), primaryPool?.end()]);
    await pair?.stop();
  });

  it("reads LSNs as numbers, a page header's insert position as its page boundary", () => {
    expect(parseLsn("0/3000000")).toBe(0x3000000n);
    expect(parseLsn("1/0")).toBe(1n << 32n);
    expect(parseLsn("0/3002018")).toBe(0x3002000n); // 24 bytes into a page: its short header
    expect(parseLsn("0/3000028")).toBe(0x3000000n); // 40 bytes into a segment: its long header
    expect(parseLsn("0/3002020")).toBe(0x3002020n);
  });

  it("every read sees each commit made before it, and the standby serves them", async () => {
    const before = targets.readCounts();
    for (let i = 1; i <= 40; i++) {
      await writer.begin(async (tx) => {
        await tx`set local synchronous_commit = off`;
        await tx`insert into t values (${i})`;
      });
      const pool = await targets.pick();
      const [row] = await pool<{ n: number }[]>`select coalesce(max(n), 0)::int as n from t`;
      expect(row!.n).toBe(i);
    }
    const after = targets.readCounts();
    // A standby on the same machine replays within the wait: almost every read is its.
    expect(after.standby! - before.standby!).toBeGreaterThanOrEqual(30);
  });

  it("replay paused: reads go to the primary at once, the lag shows and passes the limit; resumed: back to the standby", async () => {
    await pair.pauseReplay();
    try {
      const t0 = Date.now();
      for (let i = 100; i < 110; i++) {
        await writer`insert into t values (${i})`;
        const pool = await targets.pick();
        const [row] = await pool<{ n: number }[]>`select max(n)::int as n from t`;
        expect(row!.n).toBe(i); // never older than the commit before it
        expect(pool).toBe(primaryPool);
      }
      // Each of those waited at most once for the standby (then it is passed over): well under 10 waits.
      expect(Date.now() - t0).toBeLessThan(2_000);
      await until("lag past READ_MAX_LAG_MS", async () => {
        await writer`insert into t values (0)`; // the primary moves on
        return targets.allLagging();
      });
      expect(targets.status()[0]!.lagMs).toBeGreaterThan(MAX_LAG_MS);
    } finally {
      await pair.resumeReplay();
    }
    await until("standby serving again", () => targets.status()[0]!.serving && !targets.allLagging());
    const before = targets.readCounts().standby!;
    await writer`insert into t values (200)`;
    const pool = await targets.pick();
    expect(pool).toBe(standbyPool);
    expect(targets.readCounts().standby).toBe(before + 1);
    const [row] = await pool<{ n: number }[]>`select max(n)::int as n from t`;
    expect(row!.n).toBe(200);
  });

  it("a standby that does not answer is passed over", async () => {
    await pair.stopStandby();
    await until("standby down", () => !targets.status()[0]!.serving);
    expect(targets.status()[0]!.lagMs).toBe(Number.POSITIVE_INFINITY);
    const pool = await targets.pick();
    expect(pool).toBe(primaryPool);
  });
});
