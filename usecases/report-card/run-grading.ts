// The grading job's I/O: match filings to mined transactions (owner, target, exact calldata, through the
// indexer's executed calls), gather the chain facts of each matched action, and store its state, note and
// verdict in report_action. Idempotent.
//
// Bounded by what can still match (issue 30). A pass reads: the mined calls since the oldest matchable
// filing (a filing is matchable until it is matched or its window closed), each call's filings through the
// index (owner, call_key, created_at); and settles, in one statement, the filings whose window closed on the
// indexed chain. Never every filing ever made.
//
// Bounded by what changes (issue 51). A waiting action is read again only when something can change it:
// its day or week comes (`due_at`, chain time), or a change it waits on (`waits_on`: its orders' fills and
// stops, its queue request's outcome) is logged after the last pass's mark (less the reorg window), or a
// daily backstop look. An order or queue request never found an hour after the transaction, or a request
// still pending 30 days on, is settled not graded (domain/grading actionTimeline). So a pass costs the new
// calls, the changes since the last pass and the actions due, not every action that waits.
//
// An action's facts are its own: an order filing's from the `order.placed` changes of its own calls' token,
// side and amount; a queued deposit's or withdrawal's from the request of its amount. Never another order or
// request the same transaction made.
//
// Credit only where it is due. Prepares need no session, so anyone can file a wallet's predictable call
// (a cancel, claim or close by id) under a tag of its own. Hence: a mined call matches only filings made
// within the bundle lifetime (10 minutes, SIGN_REQUEST_TTL_MS) before its block's time, never after it; a
// filing made with the owner's report-card session is the owner's own and takes the call, whatever else
// matches; without one, filings under different agentTags make it credited to none (not-graded, reason
// other, kept off the public card), and a filing that lost never shows on the public card.
import type { Kysely } from "kysely";
import type { Database, FilingRow } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import {
  creditedActionsSince,
  markUnmatchable,
  matchableFilingsOf,
  oldestMatchableAt,
  type PendingRow,
  readGradingMark,
  readPendingActions,
  settleClosedFilings,
  storeGradingMark,
  storeReportAction,
  storeGradingPass,
  storeReportActions,
  type StoredAction,
} from "../../adapters/db/grading.js";
import {
  changesBetween,
  changesOf,
  indexedChainTime,
  newestCallTime,
  newestChangePosition,
  lastFillOf,
  lastTradePriceX18,
  minedCallsOf,
  minedCallsSince,
  ordersByIds,
  queueRequestState,
  tokenDecimals,
  vaultSnapshotAt,
} from "../../adapters/db/reads/grading.js";
import { SIGN_REQUEST_TTL_MS } from "../../adapters/db/sign-requests.js";
import {
  actionSteps,
  actionTimeline,
  callKeyOf,
  FACTS_BOUND_S,
  orderWaitKey,
  placedOrderIds,
  planAction,
  QUEUE_BOUND_S,
  queueWaitKey,
  requestOf,
  stateNote,
  timelineNote,
  verdict,
  WAIT_EVENT_KINDS,
  waitKeyOfChange,
  type ActionFacts,
  type ActionPlan,
  type FiledStep,
  type Timeline,
} from "../../domain/grading/index.js";
import { blockOfPosition, lastPositionOf } from "../../domain/activity-position.js";
import { DAY_MS, DAY_S, USDG_DECIMALS } from "../../domain/price.js";
import { REORG_WINDOW_BLOCKS } from "../activity/cursors.js";
import { priceUsd } from "../../domain/format.js";
import { formatUnits } from "viem";

/** Backstop for an idle chain (no indexed time moves): a filing is settled this long after it was made. */
const MATCH_WINDOW_MS = 7 * DAY_MS;

export type GradingContext = { db: Kysely<Database>; reads: Kysely<Projections>; now: () => Date };
export type GradingSummary = { filings: number; matched: number; graded: number; waiting: number; notGraded: number; unsigned: number };

/** A mined call matches filings made at most this long before its block (a bundle's lifetime). */
const FILED_WITHIN_S = SIGN_REQUEST_TTL_MS / 1000;
/** Backstop: an action waiting on a change is looked at again after this long (chain seconds), should a change be missed. */
const RECHECK_S = DAY_S;
/** An action whose chain value or facts are not there yet is looked at again once the chain moved this far. */
const RETRY_S = 60;

/** One pass: new mined calls to their filings, the matched actions not final yet, and the settling of closed windows. */
export async function runGrading(ctx: GradingContext, options: { owner?: string } = {}): Promise<GradingSummary> {
  const summary: GradingSummary = { filings: 0, matched: 0, graded: 0, waiting: 0, notGraded: 0, unsigned: 0 };
  const owner = options.owner?.toLowerCase();
  // Read first: every call mined up to this time is indexed, so filings whose window closed before it can be settled after matching.
  const startedAt = ctx.now();
  const chainNow = await indexedChainTime(ctx.reads);
  const top = await newestChangePosition(ctx.reads);
  // Every call indexed by now is matched or left by this pass: the grading lag counts only those after it.
  const coveredTo = await newestCallTime(ctx.reads);

  // One transaction for the pass's writes: one commit, not one per action.
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = { ...ctx, db: trx };
    const events = await changedWaits(tctx, owner, top);
    const matched = await matchNewCalls(tctx, owner, summary);
    const due = await readPendingActions(trx, { owner, dueBy: new Date(chainNow * 1000), events });
    await gradeAll(tctx, [...due, ...matched], chainNow, summary);
    // An owner's pass read only that owner's changes: the mark moves with passes over every owner.
    if (!owner && top !== null) await storeGradingMark(trx, blockOfPosition(top));
  });

  summary.unsigned += await settleClosedFilings(ctx.db, {
    before: new Date((chainNow - FILED_WITHIN_S) * 1000),
    staleBefore: new Date(ctx.now().getTime() - MATCH_WINDOW_MS),
    owner,
  });
  if (!owner) await storeGradingPass(ctx.db, { startedAt, coveredTo });
  return summary;
}

/**
 * The wait keys (`order:<id>`, `deposit:<queue>:<id>`, ...) that changes logged since the last pass's mark
 * (less the reorg window, whose blocks may have been replaced) up to `top` moved. Before any mark: every
 * waiting action is due anyway (migration 0011) when the pass is over every owner; an owner's own pass reads
 * that owner's changes from the start.
 */
async function changedWaits(ctx: GradingContext, owner: string | undefined, top: bigint | null): Promise<string[]> {
  if (top === null) return [];
  const mark = await readGradingMark(ctx.db);
  if (mark === null && !owner) return [];
  const from = mark === null ? -1n : (mark < blockOfPosition(top) ? mark : blockOfPosition(top)) - REORG_WINDOW_BLOCKS;
  const rows = await changesBetween(ctx.reads, { after: from < 0n ? -1n : lastPositionOf(from), upTo: top, kinds: WAIT_EVENT_KINDS, owner });
  return [...new Set(rows.map((r) => waitKeyOfChange(r)).filter((k): k is string => k !== null))];
}

/** Call key of a mined call or filing, with its owner: the grading pass's index. */
const keyOf = (from: string, key: string) => `${from.toLowerCase()}:${key}`;

/** Every call's matchable filings in one read (500 keys a statement), through (owner, call_key, created_at). */
async function filingsByCallKey(
  db: Kysely<Database>,
  calls: { from: string; to: string; input: string; timestamp: number }[],
): Promise<Map<string, FilingRow[]>> {
  const keys = [...new Set(calls.map((c) => keyOf(c.from, callKeyOf(c.to, c.input))))];
  const byKey = new Map<string, FilingRow[]>();
  for (let i = 0; i < keys.length; i += 500) {
    const part = keys.slice(i, i + 500).map((k) => k.split(":") as [string, string]);
    const rows = await matchableFilingsOf(db, part, new Date((Math.min(...calls.map((c) => c.timestamp)) - FILED_WITHIN_S) * 1000));
    for (const r of rows) {
      const k = keyOf(r.owner, r.call_key!);
      byKey.set(k, [...(byKey.get(k) ?? []), r]);
    }
  }
  return byKey;
}

/** The mined calls a filing matched: their transactions, and the calls themselves (ids: a hash, or hash:index in a batch). */
type Match = { txHashes: string[]; calls: string[]; firstTimestamp: number; timestamp: number; blockNumber: bigint };

/**
 * Credits a matched call among the candidate filings that claim it: the winner (to be graded by the
 * caller), or none (the contenders stored as not graded). `settle` is told every filing settled here.
 */
async function creditMatch(
  ctx: GradingContext,
  filing: FilingRow,
  match: Match,
  candidates: FilingRow[],
  done: Set<string>,
  summary: GradingSummary,
  settle: (id: string) => void,
): Promise<PendingRow | null> {
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
    figures: { txHashes: match.txHashes, calls: match.calls },
  };
  const plan = planAction(filing.kind, filing.steps as FiledStep[]);
  // The owner's own filing takes the call (its oldest in the window); else the oldest, when all share one tag.
  const winner = own[0] ?? (new Set(contenders.map((f) => f.agent_tag)).size === 1 ? filing : null);
  if (winner) {
    // Graded (and stored) by the caller, in this transaction.
    const won: PendingRow = {
      ...winner,
      action_figures: base.figures,
      action_executed_at: base.executed_at,
      action_tx: base.tx_hash,
      action_block: base.executed_block,
    };
    // Lost to the owner's own filing: settled, private card only (the transaction is not shown as theirs).
    // Filings of the winner's tag or session stay matchable: the owner may send the same call again.
    const lost = own.length > 0 ? contenders.filter((f) => !f.owner_session) : [];
    for (const f of lost)
      await storeReportAction(ctx.db, f, {
        state: "not-graded",
        reason: "other",
        note: `${plan.action.charAt(0).toUpperCase()}${plan.action.slice(1)} was prepared without the owner's session; the owner's own bundle (prepared with its report-card session) took the mined call: not graded.`,
        hit: null,
        figures: {},
      });
    for (const id of [winner.id, ...lost.map((f) => f.id)]) settle(id);
    return won;
  }
  // Several tags, none the owner's own: credited to none.
  const tags = [...new Set(contenders.map((f) => f.agent_tag ?? "untagged"))].sort().join(", ");
  const what = plan.action.charAt(0).toUpperCase() + plan.action.slice(1);
  const note = `${what} was prepared under several agent tags (${tags}) within the 10 minutes before it was mined, none with the owner's session: credited to none, not graded.`;
  for (const f of contenders) await storeReportAction(ctx.db, f, { ...base, state: "not-graded", reason: "other", note, hit: null, on_public_card: false });
  for (const f of contenders) settle(f.id);
  summary.notGraded += 1;
  return null;
}

/**
 * The mined calls since the oldest matchable filing was made, each to its matchable filings through
 * (owner, call_key, created_at): a pass costs the new calls and their filings, not every filing.
 */
async function matchNewCalls(ctx: GradingContext, owner: string | undefined, summary: GradingSummary): Promise<PendingRow[]> {
  const oldest = await oldestMatchableAt(ctx.db, owner);
  if (!oldest) return [];
  const calls = await minedCallsSince(ctx.reads, Math.floor(oldest.getTime() / 1000), owner);
  if (calls.length === 0) return [];
  const used = await usedTransactions(ctx.db, [...new Set(calls.map((c) => c.from.toLowerCase()))], Math.min(...calls.map((c) => c.timestamp)));
  const byKey = await filingsByCallKey(ctx.db, calls);
  const settled = new Set<string>();
  const closed: string[] = [];
  const winners: PendingRow[] = [];
  for (const call of calls) {
    const from = call.from.toLowerCase();
    const usedOf = used.get(from)!;
    if (usedOf.has(call.id) || usedOf.has(call.txHash)) continue;
    const candidates = (byKey.get(keyOf(from, callKeyOf(call.to, call.input))) ?? []).filter(
      (f) => !settled.has(f.id) && f.created_at.getTime() >= (call.timestamp - FILED_WITHIN_S) * 1000 && f.created_at.getTime() < (call.timestamp + 1) * 1000,
    );
    const done = new Set<string>();
    for (const filing of candidates) {
      if (done.has(filing.id)) continue;
      if (usedOf.has(call.id)) break;
      // One acting step: this call is its match (calls go in block order, so no earlier unused one is left).
      const match =
        actionSteps(filing.steps as FiledStep[]).length === 1
          ? { txHashes: [call.txHash], calls: [call.id], firstTimestamp: call.timestamp, timestamp: call.timestamp, blockNumber: call.blockNumber }
          : await matchFiling(ctx.reads, filing, usedOf);
      if (!match) continue;
      summary.matched += 1;
      for (const c of match.calls) usedOf.add(c);
      const winner = await creditMatch(ctx, filing, match, candidates, done, summary, (id) => {
        settled.add(id);
        closed.push(id);
      });
      if (winner) winners.push(winner);
    }
  }
  await markUnmatchable(ctx.db, closed);
  return winners;
}

/** When a waiting action is read again, and what change wakes it before then. */
function nextLook(timeline: Timeline, facts: ActionFacts, waitsOn: string[]): Pick<StoredAction, "due_at" | "waits_on"> {
  const at = (s: number) => new Date(s * 1000);
  if ("until" in timeline) return { due_at: at(timeline.until), waits_on: null };
  // Its order or request not found yet: looked at as the chain moves, settled by the bound an hour on.
  if (waitsOn.length === 0) return { due_at: at(Math.min(facts.executedAt + FACTS_BOUND_S, facts.chainNow + RETRY_S)), waits_on: null };
  const bound = facts.queue?.state === "pending" ? facts.queue.at + QUEUE_BOUND_S : Number.POSITIVE_INFINITY;
  return { due_at: at(Math.min(facts.chainNow + RECHECK_S, bound)), waits_on: waitsOn };
}

/** Actions assessed at once: their reads overlap on the projections' pool (the pass's writes stay one transaction). */
const ASSESS_AT_ONCE = 8;

/**
 * Grades the actions (the due or woken ones and the new winners) by the rules: their facts and values read
 * ASSESS_AT_ONCE at a time, then every outcome written in one upsert.
 */
async function gradeAll(ctx: GradingContext, filings: PendingRow[], chainNow: number, summary: GradingSummary): Promise<void> {
  const outcomes: Assessed[] = new Array(filings.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < filings.length; i = next++) outcomes[i] = await assess(ctx, filings[i]!, chainNow);
  };
  await Promise.all(Array.from({ length: Math.min(ASSESS_AT_ONCE, filings.length) }, worker));
  await storeReportActions(
    ctx.db,
    outcomes.map((o) => ({ filing: o.filing, stored: o.stored })),
  );
  for (const o of outcomes) {
    summary.filings += 1;
    summary[o.counted] += 1;
  }
}

type Assessed = { filing: PendingRow; stored: StoredAction; counted: "waiting" | "notGraded" | "graded" };

/** One matched action by the rules (reads only): waiting, not graded, or a hit or miss, as it is to be stored. */
async function assess(ctx: GradingContext, filing: PendingRow, chainNow: number): Promise<Assessed> {
  const plan = planAction(filing.kind, filing.steps as FiledStep[]);
  const matched = (filing.action_figures ?? {}) as { txHashes?: string[]; calls?: string[] };
  const txs = matched.txHashes ?? [];
  const executedAt = Math.floor(filing.action_executed_at!.getTime() / 1000);
  const { waitsOn = [], ...gathered } = await gatherFacts(ctx.reads, plan, filing.owner, txs);
  const facts: ActionFacts & { vault?: string } = { chainNow, executedAt, ...gathered };
  const timeline = actionTimeline(plan, facts);
  const figures = { txHashes: txs, ...(matched.calls ? { calls: matched.calls } : {}) };
  // Every write carries the match (a just-matched action has no row yet).
  const base = { tx_hash: filing.action_tx!, executed_at: filing.action_executed_at!, executed_block: filing.action_block ?? undefined };
  if (timeline.state !== "due") {
    const waiting = timeline.state === "waiting";
    const stored: StoredAction = {
      ...base,
      state: timeline.state,
      reason: timeline.reason,
      note: timelineNote(plan, timeline),
      hit: null,
      figures,
      ...(waiting ? nextLook(timeline, facts, waitsOn) : {}),
    };
    return { filing, stored, counted: waiting ? "waiting" : "notGraded" };
  }
  const values = await dueValues(ctx.reads, plan, facts, timeline.start, timeline.end);
  const result = verdict(plan, facts, values);
  if (!result) {
    // The chain has no value to compare yet (no snapshot or trade after the horizon): looked at again as the chain moves.
    const reason = plan.rule === "deposit" ? "week" : "day";
    const stored: StoredAction = {
      ...base,
      state: "waiting",
      reason,
      note: stateNote(plan, { state: "waiting", reason }),
      hit: null,
      figures,
      due_at: new Date((chainNow + RETRY_S) * 1000),
    };
    return { filing, stored, counted: "waiting" };
  }
  const stored: StoredAction = {
    ...base,
    state: "graded",
    reason: null,
    note: `${plan.action.charAt(0).toUpperCase()}${plan.action.slice(1)}: ${result.note}`,
    hit: result.hit,
    figures: { ...result.figures, ...figures, gradedOn: new Date(timeline.end * 1000).toISOString() },
    graded_at: ctx.now(),
  };
  return { filing, stored, counted: "graded" };
}

/**
 * Transactions already matched to a filing, per owner: a mined call matches at most one filing. A call
 * mined at `since` or later can only have been credited to an action executed at that time or later.
 */
async function usedTransactions(db: Kysely<Database>, owners: string[], since: number): Promise<Map<string, Set<string>>> {
  const used = new Map(owners.map((o) => [o, new Set<string>()]));
  if (owners.length === 0) return used;
  const rows = await creditedActionsSince(db, owners, new Date(since * 1000));
  // An action matched before calls were kept counts its whole transactions as used.
  for (const r of rows) {
    const f = r.figures as { txHashes?: string[]; calls?: string[] };
    for (const c of f.calls ?? f.txHashes ?? []) used.get(r.owner)?.add(c);
  }
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
    const candidates = await minedCallsOf(reads, {
      from: filing.owner,
      to: step.to,
      input: step.data,
      fromBlock: after,
      fromTime: filedAt,
      toTime: filedAt + FILED_WITHIN_S,
    });
    const found = candidates.find((c) => !used.has(c.id) && !used.has(c.txHash) && !taken.includes(c.id));
    if (!found) return null;
    taken.push(found.id);
    if (!txHashes.includes(found.txHash)) txHashes.push(found.txHash);
    after = found.blockNumber;
    last = { timestamp: found.timestamp, blockNumber: found.blockNumber };
    firstTimestamp ??= found.timestamp;
  }
  return last ? { txHashes, calls: taken, firstTimestamp: firstTimestamp!, ...last } : null;
}

/** The action's own chain facts (its queue request, its orders) and the wait keys of what can change them. */
async function gatherFacts(
  reads: Kysely<Projections>,
  plan: ActionPlan,
  owner: string,
  txs: string[],
): Promise<Partial<ActionFacts> & { vault?: string; waitsOn?: string[] }> {
  if ((plan.rule === "deposit" || plan.rule === "withdraw") && plan.queued) {
    const requested = requestOf(plan, await changesOf(reads, owner, txs));
    if (!requested) return {};
    const id = BigInt(String(requested.data.id));
    const table = plan.rule === "deposit" ? "depositRequest" : "withdrawalRequest";
    const waitsOn = [queueWaitKey(plan.rule, requested.contract, id)];
    const row = await queueRequestState(reads, table, requested.contract, id);
    if (!row) return { waitsOn };
    return { queue: { state: row.state as NonNullable<ActionFacts["queue"]>["state"], at: row.updatedAt }, vault: row.vault, waitsOn };
  }
  if (plan.rule === "order") {
    const ids = placedOrderIds(plan, await changesOf(reads, owner, txs));
    if (ids.length === 0) return {};
    const orders = await ordersByIds(reads, ids);
    const lastFillAt = await lastFillOf(reads, owner, ids);
    return {
      orders: {
        open: orders.filter((o) => o.state === "open").length + (ids.length - orders.length),
        filledIn: orders.reduce((s, o) => s + o.filledIn, 0n),
        filledOut: orders.reduce((s, o) => s + o.filledOut, 0n),
        lastFillAt,
      },
      waitsOn: ids.map(orderWaitKey),
    };
  }
  return {};
}

/** The last price of `token` at or before `at` (USDG per whole token), from the indexed pool trades. */
async function priceAt(reads: Kysely<Projections>, token: string, at: number): Promise<number | null> {
  const price = await lastTradePriceX18(reads, token, at);
  return price !== null ? priceUsd(BigInt(price)) : null;
}

/** A vault's share price (total assets / total supply) at its last snapshot at or before `at`. */
async function sharePriceAt(reads: Kysely<Projections>, vault: string, at: number): Promise<number | null> {
  const row = await vaultSnapshotAt(reads, vault, at);
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
    const decimals = await tokenDecimals(reads, plan.token);
    const o = facts.orders!;
    const dec = decimals ?? 18;
    // USDG per whole token: buys pay USDG (in) for tokens (out), sells the other way.
    const usdg = Number(formatUnits(plan.side === "buy" ? o.filledIn : o.filledOut, USDG_DECIMALS));
    const tokens = Number(plan.side === "buy" ? o.filledOut : o.filledIn) / 10 ** dec;
    return { start: tokens > 0 ? usdg / tokens : null, end: await priceAt(reads, plan.token, end) };
  }
  if (plan.rule === "range") return { start: await priceAt(reads, plan.token, start), end: await priceAt(reads, plan.token, end) };
  return { start: null, end: null };
}
