// The grading job's I/O: match filings to mined transactions (owner, target, exact calldata, through the
// indexer's executed calls), gather the chain facts of each matched action, and store its state, note and
// verdict in report_action. Idempotent: every run revisits the actions that are not final yet.
//
// Credit only where it is due. Prepares need no session, so anyone can file a wallet's predictable call
// (a cancel, claim or close by id) under a tag of its own. Hence: a mined call matches only filings made
// within the bundle lifetime (10 minutes, SIGN_REQUEST_TTL_MS) before its block's time, never after it;
// and when the filings it matches (same owner, target, calldata, in that window) carry different
// agentTags, the action is credited to none: each of them is stored not-graded, reason "ambiguous".
import { sql, type Kysely } from "kysely";
import type { Database, FilingRow } from "../../adapters/db/api-schema.js";
import type { Projections } from "../../adapters/db/projections.js";
import { SIGN_REQUEST_TTL_MS } from "../../adapters/db/sign-requests.js";
import { actionSteps, actionTimeline, planAction, stateNote, verdict, type ActionFacts, type ActionPlan, type FiledStep } from "../../domain/grading/index.js";

/** Unsigned filings are looked for this long after they were prepared (a signature may come late). */
const MATCH_WINDOW_MS = 7 * 86_400_000;
/** A bundle is called never signed once its sign request expired (10 minutes) and this grace passed. */
const UNSIGNED_AFTER_MS = 15 * 60_000;

export type GradingContext = { db: Kysely<Database>; reads: Kysely<Projections>; now: () => Date };
export type GradingSummary = { filings: number; matched: number; graded: number; waiting: number; notGraded: number; unsigned: number };

const FINAL = ["graded", "not-graded"];
/** A mined call matches filings made at most this long before its block (a bundle's lifetime). */
const FILED_WITHIN_S = SIGN_REQUEST_TTL_MS / 1000;

/** One pass over every filing that is not final. */
export async function runGrading(ctx: GradingContext, options: { owner?: string } = {}): Promise<GradingSummary> {
  const summary: GradingSummary = { filings: 0, matched: 0, graded: 0, waiting: 0, notGraded: 0, unsigned: 0 };
  const chainNow = await indexedChainTime(ctx.reads);
  let q = ctx.db
    .selectFrom("filing")
    .leftJoin("report_action", "report_action.filing_id", "filing.id")
    .selectAll("filing")
    .select([
      "report_action.state as action_state",
      "report_action.tx_hash as action_tx",
      "report_action.figures as action_figures",
      "report_action.executed_at as action_executed_at",
    ])
    .where((eb) => eb.or([eb("report_action.state", "is", null), eb("report_action.state", "not in", FINAL)]))
    .orderBy("filing.created_at")
    .orderBy("filing.id");
  if (options.owner) q = q.where("filing.owner", "=", options.owner.toLowerCase());
  const filings = await q.execute();
  const used = await usedTransactions(ctx.db, [...new Set(filings.map((f) => f.owner))]);
  // Filings settled earlier in this pass (as contenders of an ambiguous action): their rows above are stale.
  const settled = new Set<string>();

  for (const filing of filings) {
    if (settled.has(filing.id)) continue;
    summary.filings += 1;
    const steps = filing.steps as FiledStep[];
    const plan = planAction(filing.kind, steps);
    let txs = (filing.action_figures as { txHashes?: string[] } | null)?.txHashes ?? null;
    let executedAt = filing.action_executed_at ? Math.floor(filing.action_executed_at.getTime() / 1000) : null;
    let executedBlock: bigint | null = null;
    if (!filing.action_tx) {
      const match = await matchFiling(ctx.reads, filing, used.get(filing.owner)!);
      if (!match) {
        const expired = ctx.now().getTime() - filing.created_at.getTime() > UNSIGNED_AFTER_MS;
        const stale = ctx.now().getTime() - filing.created_at.getTime() > MATCH_WINDOW_MS;
        await store(ctx.db, filing, {
          state: stale ? "not-graded" : "unsigned",
          reason: stale ? "other" : null,
          note: stateNote(plan, { state: "unsigned", expired }),
          hit: null,
          figures: {},
        });
        summary.unsigned += 1;
        continue;
      }
      txs = match.txHashes;
      executedAt = match.timestamp;
      executedBlock = match.blockNumber;
      for (const t of txs) used.get(filing.owner)!.add(t);
      summary.matched += 1;
      const contenders = await contendersOf(ctx.db, filing, match.firstTimestamp, match.timestamp);
      if (new Set([filing, ...contenders].map((f) => f.agent_tag)).size > 1) {
        const tags = [...new Set([filing, ...contenders].map((f) => f.agent_tag ?? "untagged"))].sort().join(", ");
        const note = `${stateNote(plan, { state: "not-graded", reason: "ambiguous" })} Tags: ${tags}.`;
        const base = { tx_hash: txs.at(-1)!, executed_at: new Date(executedAt * 1000), executed_block: executedBlock.toString() };
        for (const f of [filing, ...contenders]) {
          await store(ctx.db, f, { ...base, state: "not-graded", reason: "ambiguous", note, hit: null, figures: { txHashes: txs } });
          settled.add(f.id);
        }
        summary.notGraded += 1;
        continue;
      }
    }
    const facts: ActionFacts = { chainNow, executedAt: executedAt!, ...(await gatherFacts(ctx.reads, plan, filing.owner, txs!)) };
    const timeline = actionTimeline(plan, facts);
    const base = {
      tx_hash: txs!.at(-1)!,
      executed_at: new Date(executedAt! * 1000),
      ...(executedBlock !== null ? { executed_block: executedBlock.toString() } : {}),
    };
    if (timeline.state !== "due") {
      await store(ctx.db, filing, {
        ...base,
        state: timeline.state,
        reason: timeline.reason,
        note: stateNote(plan, timeline),
        hit: null,
        figures: { txHashes: txs! },
      });
      if (timeline.state === "waiting") summary.waiting += 1;
      else summary.notGraded += 1;
      continue;
    }
    const values = await dueValues(ctx.reads, plan, facts, timeline.start, timeline.end);
    const result = verdict(plan, facts, values);
    if (!result) {
      // The chain has no value to compare yet (no snapshot or trade after the horizon): wait another pass.
      await store(ctx.db, filing, {
        ...base,
        state: "waiting",
        reason: plan.rule === "deposit" ? "week" : "day",
        note: stateNote(plan, { state: "waiting", reason: plan.rule === "deposit" ? "week" : "day" }),
        hit: null,
        figures: { txHashes: txs! },
      });
      summary.waiting += 1;
      continue;
    }
    await store(ctx.db, filing, {
      ...base,
      state: "graded",
      reason: null,
      note: `${plan.action.charAt(0).toUpperCase()}${plan.action.slice(1)}: ${result.note}`,
      hit: result.hit,
      figures: { ...result.figures, txHashes: txs!, gradedOn: new Date(timeline.end * 1000).toISOString() },
      graded_at: ctx.now(),
    });
    summary.graded += 1;
  }
  return summary;
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
};

async function store(db: Kysely<Database>, filing: FilingRow, s: Stored): Promise<void> {
  const values = { ...s, updated_at: new Date() };
  await db
    .insertInto("report_action")
    .values({ filing_id: filing.id, owner: filing.owner, ...values })
    .onConflict((oc) => oc.column("filing_id").doUpdateSet(values))
    .execute();
}

/** Transactions already matched to a filing, per owner: a mined call matches at most one filing. */
async function usedTransactions(db: Kysely<Database>, owners: string[]): Promise<Map<string, Set<string>>> {
  const used = new Map(owners.map((o) => [o, new Set<string>()]));
  if (owners.length === 0) return used;
  const rows = await db.selectFrom("report_action").select(["owner", "figures"]).where("owner", "in", owners).where("tx_hash", "is not", null).execute();
  for (const r of rows) for (const t of (r.figures as { txHashes?: string[] }).txHashes ?? []) used.get(r.owner)?.add(t);
  return used;
}

/** The action steps' targets and calldata, lowercased: what two filings must share to claim one mined call. */
const callsOf = (steps: unknown): string => JSON.stringify(actionSteps(steps as FiledStep[]).map((s) => [s.to.toLowerCase(), s.data.toLowerCase()]));

/**
 * The other filings a mined action could be credited to: same owner, same calls, not matched yet, made in
 * the window before the action (from FILED_WITHIN_S before its last call's block to its first call's block).
 */
async function contendersOf(db: Kysely<Database>, filing: FilingRow, firstTimestamp: number, lastTimestamp: number): Promise<FilingRow[]> {
  const rows = await db
    .selectFrom("filing")
    .leftJoin("report_action", "report_action.filing_id", "filing.id")
    .selectAll("filing")
    .where("filing.owner", "=", filing.owner)
    .where("filing.id", "!=", filing.id)
    .where("report_action.tx_hash", "is", null)
    .where("filing.created_at", ">=", new Date((lastTimestamp - FILED_WITHIN_S) * 1000))
    .where("filing.created_at", "<", new Date((firstTimestamp + 1) * 1000))
    .execute();
  const calls = callsOf(filing.steps);
  return rows.filter((r) => callsOf(r.steps) === calls);
}

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
  return row ? Number(BigInt(row.price)) / 1e18 : null;
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
    const usdg = Number(plan.side === "buy" ? o.filledIn : o.filledOut) / 1e6;
    const tokens = Number(plan.side === "buy" ? o.filledOut : o.filledIn) / 10 ** dec;
    return { start: tokens > 0 ? usdg / tokens : null, end: await priceAt(reads, plan.token, end) };
  }
  if (plan.rule === "range") return { start: await priceAt(reads, plan.token, start), end: await priceAt(reads, plan.token, end) };
  return { start: null, end: null };
}
