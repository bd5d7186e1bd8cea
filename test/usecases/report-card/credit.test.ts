// Credit only where it is due: the grading job against real Postgres, with the indexer's executed calls
// in a projections schema of the test's own. A mined call matches only filings made within the 10 minutes
// before its block (never after it); a filing made with the owner's session takes it; without one, filings
// under different agentTags make it credited to none (reason other, off the public card); a filing whose
// window closed leaves the matchable set.
import type { Kysely } from "kysely";
import type postgres from "postgres";
import { getAddress, type Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGrid, buildOrderAction } from "../../../domain/bundles/index.js";
import { callKey, notGradedReasons } from "../../../domain/grading/index.js";
import type { Database } from "../../../adapters/db/api-schema.js";
import type { Projections } from "../../../adapters/db/projections.js";
import { readReportCard } from "../../../usecases/report-card/card.js";
import { runGrading } from "../../../usecases/report-card/run-grading.js";
import { testClock } from "../../api/support.js";
import { gradingTestDb, type GradingTestDb } from "../../helpers/grading-db.js";
import { executedCallRow, poolSwapRow } from "../../helpers/projection-tables.js";

const VIEWS = "test_views";
const hook = "0x5555555555555555555555555555555555555555" as Address;
const strategy = "0x6666666666666666666666666666666666666666" as Address;
const usdg = "0x3333333333333333333333333333333333333333" as Address;
const token = "0x4444444444444444444444444444444444444444" as Address;
const E18 = 10n ** 18n;
const MIN = 60_000;

let grading: GradingTestDb;
let db: Kysely<Database>;
let reads: Kysely<Projections>;
let raw: postgres.Sql;
const clock = testClock();
const T0 = clock.now().getTime();

beforeAll(async () => {
  grading = await gradingTestDb(VIEWS);
  ({ db, reads, raw } = grading);
});
afterAll(() => grading?.close());

let nextId = 0;
const wallet = () => getAddress(`0x${(0xa0 + nextId++).toString(16).padStart(40, "0")}`);
type Steps = readonly { to: string; data: string }[];

async function file(owner: Address, steps: Steps, kind: string, agentTag: string | null, at: number, ownerSession = false): Promise<string> {
  const id = `filing-${nextId++}`;
  await db
    .insertInto("filing")
    .values({
      id,
      owner: owner.toLowerCase(),
      agent_tag: agentTag,
      kind,
      steps: steps.map((s) => ({ to: s.to, data: s.data, value: "0" })),
      created_at: new Date(at),
      call_key: callKey(steps),
      owner_session: ownerSession,
    })
    .execute();
  return id;
}

/** The owner's call mined at `at` (ms; its block time is the whole second). */
async function mined(owner: Address, step: { to: string; data: string }, at: number): Promise<string> {
  const hash = `0x${(nextId++).toString(16).padStart(64, "0")}`;
  await minedInBatch(hash, hash, 0, owner, step, at);
  return hash;
}

/** One call of a mined transaction: the transaction itself (id: its hash), or the call at `index` of its batch (id: hash:index). */
async function minedInBatch(id: string, hash: string, index: number, owner: Address, step: { to: string; data: string }, at: number) {
  const row = executedCallRow({
    id,
    txHash: hash,
    from: owner,
    to: step.to,
    input: step.data,
    blockNumber: nextId,
    callIndex: index,
    timestamp: Math.floor(at / 1000),
  });
  await raw`insert into ${raw(VIEWS)}.executed_call ${raw(row)}`;
}

const actionOf = (id: string) => db.selectFrom("report_action").selectAll().where("filing_id", "=", id).executeTakeFirst();

describe("credit only where it is due", () => {
  it("two filings of the same call sent in one atomic batch: each is matched to its own call of the transaction", async () => {
    const owner = wallet();
    const claim = buildOrderAction({ owner, hook, action: "claimBoth", id: 5n });
    const first = await file(owner, claim.steps, claim.kind, "twin", T0);
    const second = await file(owner, claim.steps, claim.kind, "twin", T0 + 1000);
    const hash = `0x${(nextId++).toString(16).padStart(64, "0")}`;
    await minedInBatch(`${hash}:0`, hash, 0, owner, claim.steps[0]!, T0 + 2 * MIN);
    await minedInBatch(`${hash}:1`, hash, 1, owner, claim.steps[0]!, T0 + 2 * MIN);
    clock.set(new Date(T0 + 3 * MIN));
    const summary = await runGrading({ db, reads, now: clock.now }, { owner });
    expect(summary.matched).toBe(2);
    for (const id of [first, second]) expect((await actionOf(id))?.tx_hash).toBe(hash);
    // Another pass matches neither again.
    expect((await runGrading({ db, reads, now: clock.now }, { owner })).matched).toBe(0);
  });

  it("a stranger files the owner's call first without a session; the owner files it with its session and sends: the owner's is credited, the stranger's is nowhere public", async () => {
    const owner = wallet();
    const claim = buildOrderAction({ owner, hook, action: "claimBoth", id: 6n });
    const stranger = await file(owner, claim.steps, claim.kind, "stranger", T0);
    const mine = await file(owner, claim.steps, claim.kind, "mine", T0 + 1 * MIN, true);
    const tx = await mined(owner, claim.steps[0]!, T0 + 2 * MIN);
    clock.set(new Date(T0 + 3 * MIN));
    await runGrading({ db, reads, now: clock.now }, { owner });

    const row = await actionOf(mine);
    expect([row?.state, row?.reason, row?.tx_hash]).toEqual(["not-graded", "order-action", tx]);
    const lost = await actionOf(stranger);
    expect([lost?.state, lost?.reason, lost?.tx_hash]).toEqual(["not-graded", "other", null]);
    expect(lost?.note).toMatch(/owner's own bundle/);
    const card = await readReportCard(db, { owner, view: "public", now: clock.now() });
    expect(card.agents.map((a) => [a.name, a.actions.map((x) => [x.state, x.reason])])).toEqual([["mine", [["not-graded", "order-action"]]]]);
    expect(JSON.stringify(card)).not.toContain("stranger");
    const priv = await readReportCard(db, { owner, view: "private", now: clock.now() });
    for (const a of priv.agents.flatMap((x) => x.actions)) if (a.state === "not-graded") expect(notGradedReasons).toContain(a.reason);
  });

  it("filed under two tags without a session: credited to none (reason other, a note in words), on no public card", async () => {
    const owner = wallet();
    const claim = buildOrderAction({ owner, hook, action: "claimBoth", id: 7n });
    const stranger = await file(owner, claim.steps, claim.kind, "stranger", T0);
    const mine = await file(owner, claim.steps, claim.kind, "mine", T0 + 1 * MIN);
    const tx = await mined(owner, claim.steps[0]!, T0 + 2 * MIN);
    clock.set(new Date(T0 + 3 * MIN));
    await runGrading({ db, reads, now: clock.now }, { owner });

    for (const id of [stranger, mine]) {
      const row = await actionOf(id);
      expect([row?.state, row?.reason, row?.hit, row?.tx_hash, row?.on_public_card]).toEqual(["not-graded", "other", null, tx, false]);
      expect(row?.note).toMatch(/several agent tags \(mine, stranger\).*credited to none/);
    }
    // Final: another pass changes nothing; the public card shows neither, the private card both.
    await runGrading({ db, reads, now: clock.now }, { owner });
    expect((await actionOf(stranger))?.reason).toBe("other");
    const card = await readReportCard(db, { owner, view: "public", now: clock.now() });
    expect(card.agents).toEqual([]);
    const priv = await readReportCard(db, { owner, view: "private", now: clock.now() });
    expect(priv.agents.map((a) => [a.name, a.actions.map((x) => [x.state, x.reason])])).toEqual([
      ["mine", [["not-graded", "other"]]],
      ["stranger", [["not-graded", "other"]]],
    ]);
  });

  it("a filing whose window closed on the indexed chain leaves the matchable set in one pass; one still in it stays", async () => {
    const owner = wallet();
    const claim = (id: bigint) => buildOrderAction({ owner, hook, action: "claimBoth", id });
    const old = await file(owner, claim(100n).steps, "order-action", "mine", T0 + 100 * MIN);
    const fresh = await file(owner, claim(101n).steps, "order-action", "mine", T0 + 115 * MIN);
    // The indexed chain's time: a trade at T0 + 120 min.
    await raw`insert into ${raw(VIEWS)}.pool_swap ${raw(poolSwapRow(token, Math.floor((T0 + 120 * MIN) / 1000), 1n, 1))}`;
    clock.set(new Date(T0 + 120 * MIN));
    const summary = await runGrading({ db, reads, now: clock.now }, { owner });
    expect(summary.unsigned).toBe(1);
    const flags = await db.selectFrom("filing").select(["id", "matchable"]).where("id", "in", [old, fresh]).orderBy("created_at").execute();
    expect(flags.map((f) => f.matchable)).toEqual([false, true]);
    const priv = await readReportCard(db, { owner, view: "private", now: clock.now() });
    expect(priv.agents[0]!.actions.map((a) => [a.id, a.state, a.reason])).toEqual([
      [fresh, "waiting", "receipt"],
      [old, "not-graded", "other"],
    ]);
  });

  it("filings under one tag: the oldest is credited as before", async () => {
    const owner = wallet();
    const claim = buildOrderAction({ owner, hook, action: "claimBoth", id: 8n });
    const first = await file(owner, claim.steps, claim.kind, "mine", T0);
    const second = await file(owner, claim.steps, claim.kind, "mine", T0 + MIN);
    const tx = await mined(owner, claim.steps[0]!, T0 + 2 * MIN);
    clock.set(new Date(T0 + 3 * MIN));
    await runGrading({ db, reads, now: clock.now }, { owner });
    const row = await actionOf(first);
    expect([row?.state, row?.reason, row?.tx_hash]).toEqual(["not-graded", "order-action", tx]);
    expect((await actionOf(second))?.tx_hash ?? null).toBeNull();
  });

  it("a filing older than 10 minutes before the block, or made after it, is not matched; one 9 minutes before is", async () => {
    const open = (o: Address) =>
      buildGrid({ owner: o, strategy, action: "open", usdg, token, buyPriceX18: 2n * E18, sellPriceX18: 3n * E18, amountUsdg: 10n, repeat: true });
    const block = T0 + 60 * MIN;
    const cases = [
      { before: 10 * MIN + 1000, matched: false },
      { before: -1000, matched: false },
      { before: 9 * MIN, matched: true },
      { before: 10 * MIN, matched: true },
    ];
    const ids: string[] = [];
    for (const c of cases) {
      const owner = wallet();
      const bundle = open(owner);
      ids.push(await file(owner, bundle.steps, bundle.kind, "mine", block - c.before));
      const acting = bundle.steps.filter((s) => !s.data.startsWith("0x095ea7b3"));
      for (const step of acting) await mined(owner, step, block);
    }
    clock.set(new Date(block + MIN));
    await runGrading({ db, reads, now: clock.now });
    const states = await Promise.all(ids.map(async (id) => (await actionOf(id))?.tx_hash != null));
    expect(states).toEqual(cases.map((c) => c.matched));
    expect((await actionOf(ids[2]!))?.state).toBe("waiting");
  });
});
