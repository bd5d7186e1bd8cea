// The grading job's I/O: match filings to mined transactions (owner, target, exact calldata, through the
// indexer's executed calls), gather the chain facts of each matched action, and store its state, note and
// verdict in report_action. Idempotent.
//
// Bounded by what can still match (issue 30). A pass reads: the mined calls since the oldest matchable
// filing (a filing is matchable until it is matched or its window closed), each call's filings through the
// index (owner, call_key, created_at); the matched actions not final yet; and settles, in one statement, the
// filings whose window closed on the indexed chain. Never every filing ever made.
//
// Credit only where it is due. Prepares need no session, so anyone can file a wallet's predictable call
// (a cancel, claim or close by id) under a tag of its own. Hence: a mined call matches only filings made
// within the bundle lifetime (10 minutes, SIGN_REQUEST_TTL_MS) before its block's time, never after it; a
// filing made with the owner's report-card session is the owner's own and takes the call, whatever else
// matches; without one, filings under different agentTags make it credited to none (not-graded, reason
// other, kept off the public card), and a filing that lost never shows on the public card.
import { sql, type Kysely } from "kysely";
import type { Database, FilingRow } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { SIGN_REQUEST_TTL_MS } from "../../adapters/db/sign-requests.js";
import {
  actionSteps,
  actionTimeline,
  callKeyOf,
  planAction,
  stateNote,
  verdict,
  type ActionFacts,
  type ActionPlan,
  type FiledStep,
} from "../../domain/grading/index.js";
import { DAY_MS, USDG_DECIMALS } from "../../domain/price.js";
import { priceUsd } from "../../domain/format.js";
import { formatUnits } from "viem";

/** Backstop for an idle chain (no indexed time moves): a filing is settled this long after it was made. */
const MATCH_WINDOW_MS = 7 * DAY_MS;

export type GradingContext = { db: Kysely<Database>; reads: Kysely<Projections>; now: () => Date };
export type GradingSummary = { filings: number; matched: number; graded: number; waiting: number; notGraded: number; unsigned: number };

const FINAL = ["graded", "not-graded"];
/** A mined call matches filings made at most this long before its block (a bundle's lifetime). */
const FILED_WITHIN_S = SIGN_REQUEST_TTL_MS / 1000;

type PendingRow = FilingRow & {
  action_figures: Record<string, unknown> | null;
  action_executed_at: Date | null;
  action_tx: string | null;
  action_block: string | null;
};

/** One pass: new mined calls to their filings, the matched actions not final yet, and the settling of closed windows. */
export async function runGrading(ctx: GradingContext, options: { owner?: string } = {}): Promise<GradingSummary> {
  const summary: GradingSummary = { filings: 0, matched: 0, graded: 0, waiting: 0, notGraded: 0, unsigned: 0 };
  const owner = options.owner?.toLowerCase();
  // Read first: every call mined up to this time is indexed, so filings whose window closed before it can be settled after matching.
  const chainNow = await indexedChainTime(ctx.reads);

  // One transaction for the pass's writes: one commit, not one per action.
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = { ...ctx, db: trx };
    const matched = await matchNewCalls(tctx, owner, summary);
    await gradePending(tctx, owner, chainNow, summary);
    for (const filing of matched) {
      summary.filings += 1;
      await grade(tctx, filing, chainNow, summary);
    }
  });

  summary.unsigned += await settleClosed(ctx.db, {
    before: new Date((chainNow - FILED_WITHIN_S) * 1000),
    staleBefore: new Date(ctx.now().getTime() - MATCH_WINDOW_MS),
    owner,
  });
  return summary;
}

/** The matched actions not final yet (waiting for fills, a day, a week, a queue): graded by the rules. */
async function gradePending(ctx: GradingContext, owner: string | undefined, chainNow: number, summary: GradingSummary): Promise<void> {
  let q = ctx.db
    .selectFrom("report_action")
    .innerJoin("filing", "filing.id", "report_action.filing_id")
    .selectAll("filing")
    .select([
      "report_action.figures as action_figures",
      "report_action.executed_at as action_executed_at",
      "report_action.tx_hash as action_tx",
      "report_action.executed_block as action_block",
    ])
    .where("report_action.tx_hash", "is not", null)
    .where("report_action.state", "not in", FINAL)
    .orderBy("filing.created_at")
    .orderBy("filing.id");
  if (owner) q = q.where("report_action.owner", "=", owner);
  for (const filing of (await q.execute()) as PendingRow[]) {
    summary.filings += 1;
    await grade(ctx, filing, chainNow, summary);
  }
}

/**
 * Filings whose window closed (made more than 10 minutes before the indexed chain's time, or a week ago
 * on an idle chain) leave the matchable set: never signed. One statement; the card words them from
 * their age (usecases/report-card/card.ts), so nothing else is stored.
 */
async function settleClosed(db: Kysely<Database>, p: { before: Date; staleBefore: Date; owner?: string }): Promise<number> {
  let q = db
    .updateTable("filing")
    .set({ matchable: false })
    .where("matchable", "=", true)
    .where((eb) => eb.or([eb("created_at", "<", p.before), eb("created_at", "<", p.staleBefore)]));
  if (p.owner) q = q.where("owner", "=", p.owner);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The mined calls since the oldest matchable filing was made, each to its matchable filings through
 * (owner, call_key, created_at): a pass costs the new calls and their filings, not every filing.
 */
async function matchNewCalls(ctx: GradingContext, owner: string | undefined, summary: GradingSummary): Promise<PendingRow[]> {
  let oldestQ = ctx.db.selectFrom("filing").select("created_at").where("matchable", "=", true).orderBy("created_at").limit(1);
  if (owner) oldestQ = oldestQ.where("owner", "=", owner);
  const oldest = await oldestQ.executeTakeFirst();
  if (!oldest) return [];
  let callsQ = ctx.reads
    .selectFrom("executedCall")
    .select(["txHash", "from", "to", "input", "blockNumber", "timestamp"])
    .where("success", "=", true)
    .where("timestamp", ">=", Math.floor(oldest.created_at.getTime() / 1000))
    .orderBy("blockNumber")
    .orderBy("txHash");
  if (owner) callsQ = callsQ.where("from", "=", owner as `0x${string}`);
  const calls = await callsQ.execute();
  if (calls.length === 0) return [];
  const used = await usedTransactions(ctx.db, [...new Set(calls.map((c) => c.from.toLowerCase()))], Math.min(...calls.map((c) => c.timestamp)));
  // Every call's matchable filings in one read, through (owner, call_key, created_at).
  const keyOf = (from: string, key: string) => `${from.toLowerCase()}:${key}`;
  const keys = [...new Set(calls.map((c) => keyOf(c.from, callKeyOf(c.to, c.input))))];
  const byKey = new Map<string, FilingRow[]>();
  for (let i = 0; i < keys.length; i += 500) {
    const part = keys.slice(i, i + 500).map((k) => k.split(":") as [string, string]);
    const rows = (await ctx.db
      .selectFrom("filing")
      .selectAll()
      .where("matchable", "=", true)
      .where((eb) => eb.or(part.map(([o, k]) => eb.and([eb("owner", "=", o), eb("call_key", "=", k)]))))
      .where("created_at", ">=", new Date((Math.min(...calls.map((c) => c.timestamp)) - FILED_WITHIN_S) * 1000))
      .orderBy("created_at")
      .orderBy("id")
      .execute()) as FilingRow[];
    for (const r of rows) {
      const k = keyOf(r.owner, r.call_key!);
      byKey.set(k, [...(byKey.get(k) ?? []), r]);
    }
  }
  const settled = new Set<string>();
  const closed: string[] = [];
  const winners: PendingRow[] = [];
  for (const call of calls) {
    const from = call.from.toLowerCase();
    const usedOf = used.get(from)!;
    if (usedOf.has(call.txHash)) continue;
    const candidates = (byKey.get(keyOf(from, callKeyOf(call.to, call.input))) ?? []).filter(
      (f) => !settled.has(f.id) && f.created_at.getTime() >= (call.timestamp - FILED_WITHIN_S) * 1000 && f.created_at.getTime() < (call.timestamp + 1) * 1000,
    );
    const done = new Set<string>();
    for (const filing of candidates) {
      if (done.has(filing.id)) continue;
      if (usedOf.has(call.txHash)) break;
      // One acting step: this call is its match (calls go in block order, so no earlier unused one is left).
      const match =
        actionSteps(filing.steps as FiledStep[]).length === 1
          ? { txHashes: [call.txHash], firstTimestamp: call.timestamp, timestamp: call.timestamp, blockNumber: call.blockNumber }
          : await matchFiling(ctx.reads, filing, usedOf);
      if (!match) continue;
      summary.matched += 1;
      for (const t of match.txHashes) usedOf.add(t);
      // The filings that claim the same calls in the window: the owner's own (with its session) takes them;
      // else one tag takes them (the oldest filing), several are credited to none.
      const calls = callsOf(filing.steps);
      const contenders = candidates.filter(
        (f) =>
          !done.has(f.id) &&
          callsOf(f.steps) === calls &&
          f.created_at.getTime() >= (match.timestamp - FILED_WITHIN_S) * 1000 &&
          f.created_at.getTime() < (match.firstTimestamp + 1) * 1000,
      );
      for (const f of contenders) done.add(f.id);
      const own = contenders.filter((f) => f.owner_session);
      const base = {
        tx_hash: match.txHashes.at(-1)!,
        executed_at: new Date(match.timestamp * 1000),
        executed_block: match.blockNumber.toString(),
        figures: { txHashes: match.txHashes },
      };
      const plan = planAction(filing.kind, filing.steps as FiledStep[]);
      // The owner's own filing takes the call (its oldest in the window); else the oldest, when all share one tag.
      const winner = own[0] ?? (new Set(contenders.map((f) => f.agent_tag)).size === 1 ? filing : null);
      if (winner) {
        // Graded (and stored) by the caller, in this transaction.
        winners.push({
          ...winner,
          action_figures: base.figures,
          action_executed_at: base.executed_at,
          action_tx: base.tx_hash,
          action_block: base.executed_block,
        });
        // Lost to the owner's own filing: settled, private card only (the transaction is not shown as theirs).
        // Filings of the winner's tag or session stay matchable: the owner may send the same call again.
        const lost = own.length > 0 ? contenders.filter((f) => !f.owner_session) : [];
        for (const f of lost)
          await store(ctx.db, f, {
            state: "not-graded",
            reason: "other",
            note: `${plan.action.charAt(0).toUpperCase()}${plan.action.slice(1)} was prepared without the owner's session; the owner's own bundle (prepared with its report-card session) took the mined call: not graded.`,
            hit: null,
            figures: {},
          });
        for (const id of [winner.id, ...lost.map((f) => f.id)]) {
          settled.add(id);
          closed.push(id);
        }
      } else {
        const tags = [...new Set(contenders.map((f) => f.agent_tag ?? "untagged"))].sort().join(", ");
        const what = plan.action.charAt(0).toUpperCase() + plan.action.slice(1);
        const note = `${what} was prepared under several agent tags (${tags}) within the 10 minutes before it was mined, none with the owner's session: credited to none, not graded.`;
        for (const f of contenders) await store(ctx.db, f, { ...base, state: "not-graded", reason: "other", note, hit: null, on_public_card: false });
        for (const f of contenders) {
          settled.add(f.id);
          closed.push(f.id);
        }
        summary.notGraded += 1;
      }
    }
  }
  await unmatchable(ctx.db, closed);
  return winners;
}

async function unmatchable(db: Kysely<Database>, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000)
    await db
      .updateTable("filing")
      .set({ matchable: false })
      .where("id", "in", ids.slice(i, i + 1000))
      .execute();
}

/** Grades one matched action by the rules: waiting, not graded, or a hit or miss. */
async function grade(ctx: GradingContext, filing: PendingRow, chainNow: number, summary: GradingSummary): Promise<void> {
  const plan = planAction(filing.kind, filing.steps as FiledStep[]);
  const txs = (filing.action_figures as { txHashes?: string[] } | null)?.txHashes ?? [];
  const executedAt = Math.floor(filing.action_executed_at!.getTime() / 1000);
  const facts: ActionFacts = { chainNow, executedAt, ...(await gatherFacts(ctx.reads, plan, filing.owner, txs)) };
  const timeline = actionTimeline(plan, facts);
  const figures = { txHashes: txs };
  // Every write carries the match (a just-matched action has no row yet).
  const base = { tx_hash: filing.action_tx!, executed_at: filing.action_executed_at!, executed_block: filing.action_block ?? undefined };
  if (timeline.state !== "due") {
    await store(ctx.db, filing, { ...base, state: timeline.state, reason: timeline.reason, note: stateNote(plan, timeline), hit: null, figures });
    if (timeline.state === "waiting") summary.waiting += 1;
    else summary.notGraded += 1;
    return;
  }
  const values = await dueValues(ctx.reads, plan, facts, timeline.start, timeline.end);
  const result = verdict(plan, facts, values);
  if (!result) {
    // The chain has no value to compare yet (no snapshot or trade after the horizon): wait another pass.
    const reason = plan.rule === "deposit" ? "week" : "day";
    await store(ctx.db, filing, { ...base, state: "waiting", reason, note: stateNote(plan, { state: "waiting", reason }), hit: null, figures });
    summary.waiting += 1;
    return;
  }
  await store(ctx.db, filing, {
    ...base,
    state: "graded",
    reason: null,
    note: `${plan.action.charAt(0).toUpperCase()}${plan.action.slice(1)}: ${result.note}`,
    hit: result.hit,
    figures: { ...result.figures, txHashes: txs, gradedOn: new Date(timeline.end * 1000).toISOString() },
    graded_at: ctx.now(),
  });
  summary.graded += 1;
}

type Stored = {
  state: string;
  reason: string | null;
  note: string;
  hit: boolean | null;
  figures: Record<string, unknown>;
  tx_hash?: string;
  executed_at?: Date;
  executed_block?: string;
  graded_at?: Date;
  on_public_card?: boolean;
};

async function store(db: Kysely<Database>, filing: FilingRow, s: Stored): Promise<void> {
  const values = { ...s, updated_at: new Date() };
  await db
    .insertInto("report_action")
    .values({ filing_id: filing.id, owner: filing.owner, ...values })
    .onConflict((oc) => oc.column("filing_id").doUpdateSet(values))
    .execute();
}

/**
 * Transactions already matched to a filing, per owner: a mined call matches at most one filing. A call
 * mined at `since` or later can only have been credited to an action executed at that time or later.
 */
async function usedTransactions(db: Kysely<Database>, owners: string[], since: number): Promise<Map<string, Set<string>>> {
  const used = new Map(owners.map((o) => [o, new Set<string>()]));
  if (owners.length === 0) return used;
  const rows = await db
    .selectFrom("report_action")
    .select(["owner", "figures"])
    .where("owner", "in", owners)
    .where("tx_hash", "is not", null)
    .where("executed_at", ">=", new Date(since * 1000))
    .execute();
  for (const r of rows) for (const t of (r.figures as { txHashes?: string[] }).txHashes ?? []) used.get(r.owner)?.add(t);
  return used;
}

/** The action steps' targets and calldata, lowercased: what two filings must share to claim one mined call. */
const callsOf = (steps: unknown): string => JSON.stringify(actionSteps(steps as FiledStep[]).map((s) => [s.to.toLowerCase(), s.data.toLowerCase()]));

/**
 * Every action step of the filing matched, in order, to a successful mined call from the owner to the same
 * target with the exact same calldata, not matched before, mined no earlier than the previous step's, and
 * mined within FILED_WITHIN_S after the filing (block times are whole seconds: the filing's second counts).
 * The steps of an atomic batch share one transaction, so a step takes a (transaction, calldata) pair; the
 * transaction is listed once.
 */
async function matchFiling(reads: Kysely<Projections>, filing: FilingRow, used: Set<string>) {
  const txHashes: string[] = [];
  const taken: string[] = [];
  let after = -1n;
  let last: { timestamp: number; blockNumber: bigint } | null = null;
  let firstTimestamp: number | null = null;
  const filedAt = Math.floor(filing.created_at.getTime() / 1000);
  for (const step of actionSteps(filing.steps as FiledStep[])) {
    const candidates = await reads
      .selectFrom("executedCall")
      .select(["txHash", "blockNumber", "timestamp"])
      .where("from", "=", filing.owner as `0x${string}`)
      .where("to", "=", step.to.toLowerCase() as `0x${string}`)
      .where("input", "=", step.data.toLowerCase() as `0x${string}`)
      .where("success", "=", true)
      .where("blockNumber", ">=", after)
      .where("timestamp", ">=", filedAt)
      .where("timestamp", "<=", filedAt + FILED_WITHIN_S)
      .orderBy("blockNumber")
      .limit(50)
      .execute();
    const call = (c: { txHash: string }) => `${c.txHash} ${step.data.toLowerCase()}`;
    const found = candidates.find((c) => !used.has(c.txHash) && !taken.includes(call(c)));
    if (!found) return null;
    taken.push(call(found));
    if (!txHashes.includes(found.txHash)) txHashes.push(found.txHash);
    after = found.blockNumber;
    last = { timestamp: found.timestamp, blockNumber: found.blockNumber };
    firstTimestamp ??= found.timestamp;
  }
  return last ? { txHashes, firstTimestamp: firstTimestamp!, ...last } : null;
}

/** The chain time the indexer has reached: the newest indexed trade or change. */
async function indexedChainTime(reads: Kysely<Projections>): Promise<number> {
  const [swap, change] = await Promise.all([
    reads.selectFrom("poolSwap").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst(),
    reads.selectFrom("activity").select(sql<number>`max(timestamp)`.as("t")).executeTakeFirst(),
  ]);
  return Math.max(Number(swap?.t ?? 0), Number(change?.t ?? 0));
}

/** The changes the matched transactions logged for the owner: which requests, orders, grids they made. */
async function changesOf(reads: Kysely<Projections>, owner: string, txs: string[]) {
  return reads
    .selectFrom("activity")
    .select(["kind", "subject", "contract", "data", "timestamp"])
    .where("owner", "=", owner as `0x${string}`)
    .where("txHash", "in", txs as `0x${string}`[])
    .execute();
}

async function gatherFacts(reads: Kysely<Projections>, plan: ActionPlan, owner: string, txs: string[]): Promise<Partial<ActionFacts> & { vault?: string }> {
  if ((plan.rule === "deposit" || plan.rule === "withdraw") && plan.queued) {
    const changes = await changesOf(reads, owner, txs);
    const requested = changes.find((c) => c.kind === (plan.rule === "deposit" ? "vault.deposit.requested" : "vault.withdrawal.requested"));
    if (!requested) return {};
    const id = BigInt(String(requested.data.id));
    const table = plan.rule === "deposit" ? "depositRequest" : "withdrawalRequest";
    const row = await reads
      .selectFrom(table)
      .select(["state", "updatedAt", "vault"])
      .where("queue", "=", requested.contract)
      .where("id", "=", id)
      .executeTakeFirst();
    if (!row) return {};
    return { queue: { state: row.state as NonNullable<ActionFacts["queue"]>["state"], at: row.updatedAt }, vault: row.vault };
  }
  if (plan.rule === "order") {
    const changes = await changesOf(reads, owner, txs);
    const ids = [...new Set(changes.filter((c) => c.kind === "order.placed").map((c) => BigInt(c.subject)))];
    if (ids.length === 0) return {};
    const orders = await reads.selectFrom("limitOrder").select(["id", "state", "filledIn", "filledOut"]).where("id", "in", ids).execute();
    const fills = await reads
      .selectFrom("activity")
      .select(sql<number>`max(timestamp)`.as("t"))
      .where("owner", "=", owner as `0x${string}`)
      .where("kind", "=", "order.filled")
      .where("subject", "in", ids.map(String))
      .executeTakeFirst();
    return {
      orders: {
        open: orders.filter((o) => o.state === "open").length + (ids.length - orders.length),
        filledIn: orders.reduce((s, o) => s + o.filledIn, 0n),
        filledOut: orders.reduce((s, o) => s + o.filledOut, 0n),
        lastFillAt: fills?.t != null ? Number(fills.t) : null,
      },
    };
  }
  return {};
}

/** The last price of `token` at or before `at` (USDG per whole token), from the indexed pool trades. */
async function priceAt(reads: Kysely<Projections>, token: string, at: number): Promise<number | null> {
  const row = await reads
    .selectFrom("poolSwap")
    // Ponder names the column price_x_18, which CamelCasePlugin would ask for as price_x18.
    .select(sql<bigint>`price_x_18`.as("price"))
    .where("token", "=", token as `0x${string}`)
    .where("timestamp", "<=", at)
    .orderBy("timestamp", "desc")
    .orderBy("blockNumber", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? priceUsd(BigInt(row.price)) : null;
}

/** A vault's share price (total assets / total supply) at its last snapshot at or before `at`. */
async function sharePriceAt(reads: Kysely<Projections>, vault: string, at: number): Promise<number | null> {
  const row = await reads
    .selectFrom("vaultSnapshot")
    .select(["totalAssets", "totalSupply"])
    .where("vault", "=", vault as `0x${string}`)
    .where("timestamp", "<=", at)
    .orderBy("timestamp", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!row || row.totalSupply === 0n) return null;
  return Number(row.totalAssets) / Number(row.totalSupply);
}

async function dueValues(reads: Kysely<Projections>, plan: ActionPlan, facts: ActionFacts & { vault?: string }, start: number, end: number) {
  if (plan.rule === "deposit" || plan.rule === "withdraw") {
    const vault = plan.vault ?? facts.vault;
    if (!vault) return { start: null, end: null };
    return { start: await sharePriceAt(reads, vault, start), end: await sharePriceAt(reads, vault, end) };
  }
  if (plan.rule === "order") {
    const token = await reads.selectFrom("token").select("decimals").where("address", "=", plan.token).executeTakeFirst();
    const o = facts.orders!;
    const dec = token?.decimals ?? 18;
    // USDG per whole token: buys pay USDG (in) for tokens (out), sells the other way.
    const usdg = Number(formatUnits(plan.side === "buy" ? o.filledIn : o.filledOut, USDG_DECIMALS));
    const tokens = Number(plan.side === "buy" ? o.filledOut : o.filledIn) / 10 ** dec;
    return { start: tokens > 0 ? usdg / tokens : null, end: await priceAt(reads, plan.token, end) };
  }
  if (plan.rule === "range") return { start: await priceAt(reads, plan.token, start), end: await priceAt(reads, plan.token, end) };
  return { start: null, end: null };
}
