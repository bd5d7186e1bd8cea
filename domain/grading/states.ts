// The report card's action states and their reasons (spec "States and transitions"). Pure.
import { DAY_S } from "../price.js";
export const waitingReasons = ["fill", "day", "week", "queue", "receipt"] as const;
export const notGradedReasons = ["orbio", "swap", "cancel", "order-action", "grid-action", "in-kind", "queue-cancelled", "account", "other"] as const;
export type WaitingReason = (typeof waitingReasons)[number];
export type NotGradedReason = (typeof notGradedReasons)[number];

export type ActionState = { state: "graded"; reason: null } | { state: "waiting"; reason: WaitingReason } | { state: "not-graded"; reason: NotGradedReason };

/** Graded actions before a hit rate is given (spec Limits). */
export const MIN_GRADED_FOR_RATE = 30;

export const WEEK_S = 7 * DAY_S;
