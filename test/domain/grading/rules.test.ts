// The grading rules on bundles the builders make: which rule applies, when an action waits (and for
// what), and the verdicts; and the card's grouping and hit rate.
import { describe, expect, it } from "vitest";
import type { Address } from "viem";
import { buildGrid, buildLimitOrder, buildOrderAction, buildVaultCancelDeposit, buildVaultDeposit, buildVaultWithdraw } from "../../../domain/bundles/index.js";
import {
  actionTimeline,
  FACTS_BOUND_S,
  groupByAgent,
  hitRateOf,
  notGradedReasons,
  orderWaitKey,
  placedOrderIds,
  planAction,
  QUEUE_BOUND_S,
  queueWaitKey,
  requestOf,
  timelineNote,
  verdict,
  waitKeyOfChange,
  type CardAction,
} from "../../../domain/grading/index.js";
import { wilsonLowerBound } from "../../../domain/grading/wilson.js";

const owner = "0x1111111111111111111111111111111111111111" as Address;
const vault = "0x2222222222222222222222222222222222222222" as Address;
const usdg = "0x3333333333333333333333333333333333333333" as Address;
const token = "0x4444444444444444444444444444444444444444" as Address;
const other = "0x5555555555555555555555555555555555555555" as Address;
const hook = "0x6666666666666666666666666666666666666666" as Address;
const DAY = 86_400;
const E18 = 10n ** 18n;

describe("planAction", () => {
  it("reads the rule from the bundle's own calldata", () => {
    const grid = buildGrid({
      owner,
      strategy: other,
      action: "open",
      usdg,
      token,
      buyPriceX18: 2n * E18,
      sellPriceX18: 3n * E18,
      amountUsdg: 10n,
      repeat: true,
    });
    expect(planAction(grid.kind, grid.steps)).toMatchObject({ rule: "range", token: token.toLowerCase(), buyX18: 2n * E18, sellX18: 3n * E18 });
    const close = buildGrid({ owner, strategy: other, action: "close", id: 4n });
    expect(planAction(close.kind, close.steps)).toMatchObject({ rule: "not-graded", reason: "grid-action" });
    const sell = buildLimitOrder({ owner, hook: other, usdg, token, sellToken: true, amountIn: 5n, priceX18: E18, market: false, minAmountOut: 0n });
    expect(planAction(sell.kind, sell.steps)).toMatchObject({ rule: "order", side: "sell", token: token.toLowerCase() });
    const deposit = buildVaultDeposit({ family: "merged", owner, vault, usdg, assets: 10n, minShares: 0n });
    expect(planAction(deposit.kind, deposit.steps)).toMatchObject({ rule: "deposit", vault: vault.toLowerCase(), queued: true });
    const inKind = buildVaultWithdraw({ family: "merged", mode: "in-kind", owner, vault, shares: 1n, minTokenOut: 0n, minUsdgOut: 0n });
    expect(planAction(inKind.kind, inKind.steps)).toMatchObject({ rule: "not-graded", reason: "in-kind" });
    const usdgOut = buildVaultWithdraw({ family: "merged", mode: "usdg", owner, vault, shares: 1n, minUsdgOut: 0n, route: "0x" });
    expect(planAction(usdgOut.kind, usdgOut.steps)).toMatchObject({ rule: "withdraw", queued: false });
    const cancel = buildVaultCancelDeposit({ family: "merged", owner, vault, id: 1n });
    expect(planAction(cancel.kind, cancel.steps)).toMatchObject({ rule: "not-graded", reason: "cancel" });
    const claim = buildOrderAction({ owner, hook: other, action: "claimBoth", id: 1n });
    expect(planAction(claim.kind, claim.steps)).toMatchObject({ rule: "not-graded", reason: "order-action" });
    expect(planAction("swap", [])).toMatchObject({ reason: "swap" });
    expect(planAction("account-agent-call", [])).toMatchObject({ reason: "account" });
    expect(planAction("basket-buy", [])).toMatchObject({ reason: "other" });
  });
});

describe("actionTimeline and verdict", () => {
  const range = { rule: "range" as const, action: "grid open", token: token.toLowerCase() as `0x${string}`, buyX18: 2n * E18, sellX18: 3n * E18 };
  it("a grid open waits a day, then is a hit inside its lines and a miss outside", () => {
    expect(actionTimeline(range, { chainNow: 1000 + DAY - 1, executedAt: 1000 })).toEqual({ state: "waiting", reason: "day", until: 1000 + DAY });
    expect(actionTimeline(range, { chainNow: 1000 + DAY, executedAt: 1000 })).toEqual({ state: "due", start: 1000, end: 1000 + DAY });
    expect(verdict(range, { chainNow: 0, executedAt: 0 }, { start: 2.5, end: 2.9 })!.hit).toBe(true);
    expect(verdict(range, { chainNow: 0, executedAt: 0 }, { start: 2.5, end: 3.1 })!.hit).toBe(false);
    expect(verdict(range, { chainNow: 0, executedAt: 0 }, { start: 2.5, end: null })).toBeNull();
  });

  it("a queued deposit waits for the queue, then 7 days from settlement; a cancelled one is not graded", () => {
    const plan = { rule: "deposit" as const, action: "vault deposit", vault: null, queued: true, amount: 10n };
    expect(actionTimeline(plan, { chainNow: 10, executedAt: 0 })).toEqual({ state: "waiting", reason: "queue" });
    expect(actionTimeline(plan, { chainNow: 10, executedAt: 0, queue: { state: "pending", at: 0 } })).toEqual({ state: "waiting", reason: "queue" });
    expect(actionTimeline(plan, { chainNow: 100 + 7 * DAY - 1, executedAt: 0, queue: { state: "settled", at: 100 } })).toEqual({
      state: "waiting",
      reason: "week",
      until: 100 + 7 * DAY,
    });
    expect(actionTimeline(plan, { chainNow: 100 + 7 * DAY, executedAt: 0, queue: { state: "settled", at: 100 } })).toMatchObject({ state: "due", start: 100 });
    expect(actionTimeline(plan, { chainNow: 10, executedAt: 0, queue: { state: "refunded", at: 5 } })).toEqual({
      state: "not-graded",
      reason: "queue-cancelled",
    });
    expect(verdict(plan, { chainNow: 0, executedAt: 0 }, { start: 1.01, end: 1.02 })!.hit).toBe(true);
    expect(verdict(plan, { chainNow: 0, executedAt: 0 }, { start: 1.01, end: 1.0 })!.hit).toBe(false);
  });

  it("orders wait for fills; no fill is not graded; a buy is a hit when the price rose a day after the last fill", () => {
    const plan = {
      rule: "order" as const,
      action: "limit order",
      side: "buy" as const,
      token: token.toLowerCase() as `0x${string}`,
      orders: 1,
      placed: [{ token: token.toLowerCase() as `0x${string}`, sellToken: false, amountIn: 10n }],
    };
    expect(actionTimeline(plan, { chainNow: 10, executedAt: 0, orders: { open: 1, filledIn: 0n, filledOut: 0n, lastFillAt: null } })).toEqual({
      state: "waiting",
      reason: "fill",
    });
    expect(actionTimeline(plan, { chainNow: 10, executedAt: 0, orders: { open: 0, filledIn: 0n, filledOut: 0n, lastFillAt: null } })).toEqual({
      state: "not-graded",
      reason: "cancel",
    });
    const filled = { chainNow: 50 + DAY, executedAt: 0, orders: { open: 0, filledIn: 10n, filledOut: 5n, lastFillAt: 50 } };
    expect(actionTimeline(plan, filled)).toMatchObject({ state: "due", start: 50, end: 50 + DAY });
    expect(verdict(plan, filled, { start: 2, end: 2.1 })!.hit).toBe(true);
    expect(verdict({ ...plan, side: "sell" }, filled, { start: 2, end: 2.1 })!.hit).toBe(false);
  });

  it("an order or queue request never found an hour after the transaction, or a request pending 30 days, is settled not graded (other)", () => {
    const order = planAction("limit-order", buildLimitOrder({ owner, hook, usdg, token, sellToken: false, amountIn: 10n, priceX18: E18 }).steps);
    expect(actionTimeline(order, { chainNow: FACTS_BOUND_S - 1, executedAt: 0 })).toEqual({ state: "waiting", reason: "fill" });
    const unfound = actionTimeline(order, { chainNow: FACTS_BOUND_S, executedAt: 0 });
    expect(unfound).toMatchObject({ state: "not-graded", reason: "other" });
    expect(timelineNote(order, unfound as Exclude<typeof unfound, { state: "due" }>)).toBe("Limit order made no order like the one prepared: not graded.");
    const queued = { rule: "deposit" as const, action: "vault deposit (queued)", vault: null, queued: true, amount: 10n };
    expect(actionTimeline(queued, { chainNow: FACTS_BOUND_S, executedAt: 0 })).toMatchObject({ state: "not-graded", reason: "other" });
    const pending = { executedAt: 0, queue: { state: "pending" as const, at: 100 } };
    expect(actionTimeline(queued, { ...pending, chainNow: 100 + QUEUE_BOUND_S - 1 })).toEqual({ state: "waiting", reason: "queue" });
    expect(actionTimeline(queued, { ...pending, chainNow: 100 + QUEUE_BOUND_S })).toMatchObject({
      state: "not-graded",
      reason: "other",
      why: expect.stringMatching(/30 days/),
    });
    for (const t of [unfound, actionTimeline(queued, { ...pending, chainNow: 100 + QUEUE_BOUND_S })])
      expect(notGradedReasons).toContain("reason" in t && t.reason);
  });
});

describe("an action's own facts", () => {
  const change = (kind: string, subject: string, data: Record<string, unknown>) => ({ kind, subject, contract: hook.toLowerCase(), data });
  it("an order filing takes the order.placed of its own token, side and amount, never another order of the same transaction", () => {
    const plan = planAction("limit-order", buildLimitOrder({ owner, hook, usdg, token, sellToken: false, amountIn: 500n, priceX18: E18 }).steps);
    if (plan.rule !== "order") throw new Error("not an order plan");
    const cheap = change("order.placed", "7", { token: usdg, sellToken: false, amountIn: "1", priceX18: "1", market: false });
    const sold = change("order.placed", "8", { token, sellToken: true, amountIn: "500", priceX18: "1", market: false });
    const mine = change("order.placed", "9", { token, sellToken: false, amountIn: "500", priceX18: "1", market: false });
    expect(placedOrderIds(plan, [cheap, sold, mine])).toEqual([9n]);
    expect(placedOrderIds(plan, [cheap, sold])).toEqual([]);
  });
  it("a queued deposit takes the request of its own amount", () => {
    const plan = { rule: "deposit" as const, action: "vault deposit (queued)", vault: null, queued: true, amount: 12n };
    const other = change("vault.deposit.requested", "v", { id: "1", assets: "3" });
    const mine = change("vault.deposit.requested", "v", { id: "2", assets: "12" });
    expect(requestOf(plan, [other, mine])?.data.id).toBe("2");
    expect(requestOf(plan, [other])).toBeUndefined();
  });
  it("wait keys: the changes that move an order or a queue request name the keys the waiting action stores", () => {
    expect(waitKeyOfChange(change("order.closed", "9", {}))).toBe(orderWaitKey(9n));
    expect(waitKeyOfChange({ kind: "vault.deposit.settled", subject: "v", contract: "0xAB", data: { id: "2" } })).toBe(queueWaitKey("deposit", "0xab", 2n));
    expect(waitKeyOfChange({ kind: "vault.withdrawal.completed", subject: "v", contract: "0xab", data: { id: "2" } })).toBe("withdrawal:0xab:2");
  });
});

describe("the card", () => {
  const action = (agentTag: string | null, hit: boolean | null, i: number): CardAction => ({
    id: `${agentTag}-${i}`,
    agentTag,
    kind: "grid",
    action: "grid open",
    state: hit === null ? "waiting" : "graded",
    reason: hit === null ? "day" : null,
    hit,
    note: "",
    preparedAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    executedAt: null,
    gradedAt: null,
    txHash: null,
    figures: {},
  });

  it("no hit rate before 30 graded actions; then the Wilson bound of the raw hits and misses", () => {
    const list = Array.from({ length: 29 }, (_, i) => action("a", i % 3 !== 0, i));
    expect(hitRateOf(list)).toBeNull();
    list.push(action("a", true, 29), action("a", null, 30));
    const rate = hitRateOf(list)!;
    expect([rate.hits, rate.misses]).toEqual([20, 10]);
    expect(rate.lower90).toBe(wilsonLowerBound({ hits: 20, misses: 10 }));
    expect(rate.howGraded).toMatch(/Wilson/);
  });

  it("groups by agent tag, the untagged group last, newest first, ready once rated", () => {
    const agents = groupByAgent([action(null, true, 1), action("b", true, 2), ...Array.from({ length: 30 }, (_, i) => action("a", true, 10 + i))]);
    expect(agents.map((a) => [a.name, a.ready])).toEqual([
      ["a", true],
      ["b", false],
      [null, false],
    ]);
    expect(agents[0]!.actions[0]!.id).toBe("a-39");
  });
});
