// The report card's grading rules: fixed, written per action kind, and fed only by the chain. Pure.
//
// An action is a filing (a prepared bundle) whose action steps were matched to mined transactions.
// `planAction` runs the rule its bundle kind's product declares (domain/products/<product>/index.ts) on
// the filing's own calldata, which decides which rule applies; `actionTimeline` says,
// from chain facts, whether the action waits (and for what), is not graded (and why), or is due; the
// caller then reads the two chain values the rule compares and `verdict` gives the hit or miss.
//
// The rules (GRADING_RULES below is the same text, served as `howGraded`):
// - Vault deposits (every family): graded 7 days after the shares were issued (for queued deposits,
//   after settlement). Hit: the vault's share price (total assets / total supply) 7 days later is at
//   least what it was when the shares were issued. Cancelled or refunded queued deposits are not graded.
// - Vault withdrawals in USDG, straight or through a queue: graded a day after the USDG was paid (for
//   queued ones, after the queue completed). Hit: the share price a day later is at most what it was
//   at the exit (leaving did not miss a gain). Cancelled queued withdrawals are not graded.
// - Limit orders and order ladders: graded a day after the last fill. Hit: for buys the token's price a
//   day after the fill is at least the average fill price; for sells, at most. An order that stopped with
//   no fill is not graded (cancel).
// - Grid and ladder-strategy opens: graded a day after the open. Hit: the token's price a day later is
//   inside the lines (lowest buy ≤ price ≤ highest sell), so the strategy is still trading.
// - Not graded: in-kind exits (in-kind), cancels of queued requests (cancel), order claims, cancels and
//   realizes (order-action), grid and ladder-strategy close, setRepeat and collect (grid-action), swaps
//   (swap), agent-account calls (account), baskets and anything else (other). `orbio` is kept for
//   products graded by their own record outside this card; no action kind here has it.
// - Credit (usecases/report-card/run-grading.ts): a mined call matches filings made within the 10 minutes before
//   its block; a filing made with the owner's report-card session takes it; else, filed under several agent
//   tags in that window, it is credited to none (not graded, reason other, off the public card).
import { concat, keccak256, type Hex as ViemHex } from "viem";
import { decodeStep } from "../bundles/decode.js";
import { bundleRules } from "../products/index.js";
import { lowerHex, notGraded, type ActionPlan, type FiledStep } from "./plan.js";
import { WEEK_S, type ActionState } from "./states.js";
import { DAY_S } from "../price.js";
import { priceUsd } from "../format.js";

export const GRADING_RULES =
  "Graded from the chain only. Vault deposits: 7 days after the shares were issued, a hit when the share price is not lower. " +
  "Withdrawals in USDG (also queued): a day after payment, a hit when the share price is not higher a day later. " +
  "Limit orders and ladders: a day after the last fill, a hit when the price moved the order's way (up after a buy, down after a sell). " +
  "Grid and ladder-strategy opens: a day later, a hit when the price is inside the lines. " +
  "In-kind exits, cancels, order and grid actions, swaps, account calls and baskets are not graded. " +
  "A mined call is credited to a bundle prepared within the 10 minutes before its block; a bundle prepared with the owner's report-card session takes it; else, prepared under several agent tags in that window, it is credited to none (not graded). " +
  "lower90 is the Wilson lower bound (z = 1.6449) of hits / (hits + misses).";

type Hex = `0x${string}`;
export type { ActionPlan, FiledOrder, FiledStep } from "./plan.js";

const lower = lowerHex;
const APPROVE = "0x095ea7b3";

/** The steps that act (every step but ERC-20 approvals): the ones matched to mined calls. */
export function actionSteps<T extends FiledStep>(steps: readonly T[]): T[] {
  return steps.filter((s) => !s.data.toLowerCase().startsWith(APPROVE));
}

/** The key a mined call finds its filings by: keccak256 of its target and calldata, lowercased. */
export function callKeyOf(to: string, data: string): string {
  return keccak256(concat([to.toLowerCase() as ViemHex, data.toLowerCase() as ViemHex]));
}

/** A filing's key: its first acting step's (null when nothing acts, so nothing can match it). */
export function callKey(steps: unknown): string | null {
  const first = actionSteps(steps as FiledStep[])[0];
  return first ? callKeyOf(first.to, first.data) : null;
}

/** Which rule grades a filing, from its bundle kind (its product's rule for it) and its own calldata. */
export function planAction(kind: string, steps: readonly FiledStep[]): ActionPlan {
  const acting = actionSteps(steps).map((s) => ({ ...s, call: decodeStep({ data: s.data as Hex }) }));
  const main = acting[0];
  const rule = bundleRules(kind)?.grade;
  if (!rule) return notGraded("other", String(kind));
  return rule({ kind, acting, main, fn: main?.call?.functionName ?? "unknown", args: main?.call?.args ?? [] });
}

/** Chain facts about a matched action, gathered by the grading job. Times are unix seconds of the chain. */
export type ActionFacts = {
  /** The indexed chain's time now. */
  chainNow: number;
  /** The block time of the (last) matched transaction. */
  executedAt: number;
  /** Queued deposits and withdrawals: the request's state and when it last changed. Absent: not indexed yet. */
  queue?: { state: "pending" | "settled" | "completed" | "refunded" | "cancelled"; at: number };
  /** Orders: whether any is still open, what filled in all (in and out, base units), and the last fill time. */
  orders?: { open: number; filledIn: bigint; filledOut: bigint; lastFillAt: number | null };
};

/** How long a queued request may stay pending before the action is settled, not graded (chain seconds). */
export const QUEUE_BOUND_S = 30 * DAY_S;
/** How long after its transaction an action's order or queue request may stay unfound before it is settled, not graded. */
export const FACTS_BOUND_S = 60 * 60;

export type Timeline =
  | ActionState
  /** Waiting for its day or week: due at `until` (chain time). */
  | { state: "waiting"; reason: "day" | "week"; until: number }
  /** Settled by a bound: it can never be graded (`why` in words). */
  | { state: "not-graded"; reason: "other"; why: string }
  | { state: "due"; start: number; end: number };

/** Waiting, not graded, or due (with the start and end times whose chain values the rule compares). */
export function actionTimeline(plan: ActionPlan, f: ActionFacts): Timeline {
  if (plan.rule === "not-graded") return { state: "not-graded", reason: plan.reason };
  const due = (start: number, horizon: number): Timeline =>
    f.chainNow >= start + horizon
      ? { state: "due", start, end: start + horizon }
      : { state: "waiting", reason: horizon === WEEK_S ? "week" : "day", until: start + horizon };
  // Its transaction is indexed with its changes: an order or request still unfound an hour later never will be.
  const unfound = (what: string, waiting: Timeline): Timeline =>
    f.chainNow - f.executedAt >= FACTS_BOUND_S ? { state: "not-graded", reason: "other", why: `made no ${what} like the one prepared` } : waiting;

  if (plan.rule === "deposit" || plan.rule === "withdraw") {
    const horizon = plan.rule === "deposit" ? WEEK_S : DAY_S;
    if (!plan.queued) return due(f.executedAt, horizon);
    if (!f.queue) return unfound("queue request", { state: "waiting", reason: "queue" });
    if (f.queue.state === "pending")
      return f.chainNow - f.queue.at >= QUEUE_BOUND_S
        ? { state: "not-graded", reason: "other", why: "was still pending in the vault's queue 30 days after the request" }
        : { state: "waiting", reason: "queue" };
    if (f.queue.state === "cancelled" || f.queue.state === "refunded") return { state: "not-graded", reason: "queue-cancelled" };
    return due(f.queue.at, horizon);
  }
  if (plan.rule === "order") {
    if (!f.orders) return unfound("order", { state: "waiting", reason: "fill" });
    if (f.orders.open > 0) return { state: "waiting", reason: "fill" };
    if (f.orders.filledIn === 0n || f.orders.lastFillAt === null) return { state: "not-graded", reason: "cancel" };
    return due(f.orders.lastFillAt, DAY_S);
  }
  return due(f.executedAt, DAY_S);
}

/** A change the indexer logged (an activity row's parts the grading reads). */
export type LoggedChange = { kind: string; subject: string; contract: string; data: Record<string, unknown> };

/**
 * The orders the filing's own calls placed: each filed order takes one `order.placed` of its token, side
 * and amount, so another order placed in the same transaction (a cheaper one, say) never feeds the verdict.
 */
export function placedOrderIds(plan: Extract<ActionPlan, { rule: "order" }>, changes: readonly LoggedChange[]): bigint[] {
  const left = changes.filter((c) => c.kind === "order.placed");
  const ids: bigint[] = [];
  for (const o of plan.placed) {
    const i = left.findIndex(
      (c) =>
        lower(c.data.token) === o.token &&
        (c.data.sellToken === true || c.data.sellToken === "true") === o.sellToken &&
        String(c.data.amountIn) === o.amountIn.toString(),
    );
    if (i < 0) continue;
    ids.push(BigInt(left[i]!.subject));
    left.splice(i, 1);
  }
  return ids;
}

/** The queue request the filing's own call made: a `vault.deposit.requested` (or withdrawal) of the filed amount. */
export function requestOf(plan: Extract<ActionPlan, { rule: "deposit" | "withdraw" }>, changes: readonly LoggedChange[]): LoggedChange | undefined {
  const kind = plan.rule === "deposit" ? "vault.deposit.requested" : "vault.withdrawal.requested";
  const field = plan.rule === "deposit" ? "assets" : "shares";
  return changes.find((c) => c.kind === kind && plan.amount !== null && String(c.data[field]) === plan.amount.toString());
}

/** The changes that can move a waiting action on: an order's fill or stop, a queue request's outcome. */
export const WAIT_EVENT_KINDS = [
  "order.filled",
  "order.claimable",
  "order.closed",
  "vault.deposit.settled",
  "vault.deposit.refunded",
  "vault.deposit.cancelled",
  "vault.withdrawal.completed",
  "vault.withdrawal.cancelled",
] as const;

/** What a waiting action waits on: its order (`order:<id>`) or queue request (`deposit:<queue>:<id>`, `withdrawal:<queue>:<id>`). */
export const orderWaitKey = (id: bigint | string) => `order:${id}`;
export const queueWaitKey = (rule: "deposit" | "withdraw", queue: string, id: bigint | string) =>
  `${rule === "deposit" ? "deposit" : "withdrawal"}:${queue.toLowerCase()}:${id}`;

/** The wait key a logged change moves (see WAIT_EVENT_KINDS), or null. */
export function waitKeyOfChange(c: LoggedChange): string | null {
  if (c.kind.startsWith("order.")) return orderWaitKey(c.subject);
  if (c.kind.startsWith("vault.deposit.")) return queueWaitKey("deposit", c.contract, String(c.data.id));
  if (c.kind.startsWith("vault.withdrawal.")) return queueWaitKey("withdraw", c.contract, String(c.data.id));
  return null;
}

/** Chain values at the start and the end of a due action: share prices (deposits, withdrawals) or token prices. */
export type DueValues = { start: number | null; end: number | null };

export type Verdict = { hit: boolean; note: string; figures: Record<string, string | number> };

const fmt = (x: number) => (Math.abs(x) >= 1 ? x.toFixed(4) : x.toPrecision(4));
const pct = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(2)}%`;

/**
 * The hit or miss of a due action. `values.start`/`end`: share prices for deposits and withdrawals; for
 * orders `end` is the token price a day after the last fill (the start is the average fill price, from
 * the facts); for ranges `end` is the token price a day after the open. Null when the chain has no value.
 */
export function verdict(plan: ActionPlan, f: ActionFacts, values: DueValues): Verdict | null {
  const { start, end } = values;
  switch (plan.rule) {
    case "deposit":
      if (start === null || end === null) return null;
      return {
        hit: end >= start,
        note: `Share price ${fmt(start)} when the shares were issued, ${fmt(end)} 7 days later (${pct(start, end)}): ${end >= start ? "a hit" : "a miss"}.`,
        figures: { sharePriceStart: fmt(start), sharePriceEnd: fmt(end) },
      };
    case "withdraw":
      if (start === null || end === null) return null;
      return {
        hit: end <= start,
        note: `Share price ${fmt(start)} at the exit, ${fmt(end)} a day later (${pct(start, end)}): ${end <= start ? "a hit, leaving missed no gain" : "a miss, the vault gained after the exit"}.`,
        figures: { sharePriceExit: fmt(start), sharePriceDayLater: fmt(end) },
      };
    case "order": {
      if (end === null || !f.orders || f.orders.filledIn === 0n || f.orders.filledOut === 0n) return null;
      // Fill price in USDG per token from what went in and out (decimals are applied by the caller's scale).
      const fill = values.start;
      if (fill === null) return null;
      const hit = plan.side === "buy" ? end >= fill : end <= fill;
      return {
        hit,
        note: `${plan.side === "buy" ? "Bought" : "Sold"} at ${fmt(fill)} USDG on average; ${fmt(end)} a day after the last fill (${pct(fill, end)}): ${hit ? "a hit" : "a miss"}.`,
        figures: { fillPrice: fmt(fill), priceDayLater: fmt(end) },
      };
    }
    case "range": {
      if (end === null) return null;
      const buy = priceUsd(plan.buyX18);
      const sell = priceUsd(plan.sellX18);
      const hit = end >= buy && end <= sell;
      return {
        hit,
        note: `Lines ${fmt(buy)}-${fmt(sell)} USDG; the price a day after the open was ${fmt(end)}: ${hit ? "a hit, inside the lines" : "a miss, outside the lines"}.`,
        figures: { buyLine: fmt(buy), sellLine: fmt(sell), priceDayLater: fmt(end) },
      };
    }
    default:
      return null;
  }
}

/** A timeline's note in words (a bound's reason, else the state's). */
export function timelineNote(plan: ActionPlan, t: Exclude<Timeline, { state: "due" }>): string {
  if ("why" in t) return `${plan.action.charAt(0).toUpperCase()}${plan.action.slice(1)} ${t.why}: not graded.`;
  return stateNote(plan, t);
}

/** A note in words for an action that is not graded (yet). */
export function stateNote(plan: ActionPlan, state: ActionState | { state: "unsigned"; expired: boolean }): string {
  const what = plan.action.charAt(0).toUpperCase() + plan.action.slice(1);
  if (state.state === "unsigned") return state.expired ? `${what}: prepared, never signed (the bundle expired).` : `${what}: prepared, waiting to be signed.`;
  if (state.state === "graded") return `${what}: graded.`;
  if (state.state === "waiting") {
    const words = {
      fill: "waits for its orders to fill (or stop)",
      day: "is graded a day after it took effect",
      week: "is graded 7 days after the shares were issued",
      queue: "waits in the vault's queue",
      receipt: "was signed; its transaction is not indexed yet",
    } as const;
    return `${what} ${words[state.reason]}.`;
  }
  const words = {
    orbio: "is graded by its own record, not on this card",
    swap: "is a swap: not graded",
    cancel: "cancelled or stopped before it did anything: not graded",
    "order-action": "is an order action (claim, cancel or realize): not graded",
    "grid-action": "is a strategy action (close, repeat or collect): not graded",
    "in-kind": "is an in-kind exit: not graded",
    "queue-cancelled": "left the queue without settling: not graded",
    account: "is an agent-account call: not graded",
    other: "is not graded",
  } as const;
  return `${what} ${words[state.reason]}.`;
}
