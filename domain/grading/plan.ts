// What a filing is graded by: the plan a bundle kind's grading rule makes from the filing's own calls. Each
// product declares the rule of each of its bundle kinds (domain/products/<product>/index.ts); rules.ts runs
// the one a filing's kind names. Pure.
import type { DecodedStep } from "../bundles/call.js";
import type { NotGradedReason } from "./states.js";

type Hex = `0x${string}`;
export type FiledStep = { to: string; data: string };

export type ActionPlan =
  | { rule: "not-graded"; reason: NotGradedReason; action: string }
  | { rule: "deposit"; action: string; vault: Hex | null; queued: boolean; amount: bigint | null }
  | { rule: "withdraw"; action: string; vault: Hex | null; queued: boolean; amount: bigint | null }
  | { rule: "order"; action: string; side: "buy" | "sell"; token: Hex; orders: number; placed: FiledOrder[] }
  | { rule: "range"; action: string; token: Hex; buyX18: bigint; sellX18: bigint };

/** An order a filed call places: its token, side and input amount (what its `order.placed` must show). */
export type FiledOrder = { token: Hex; sellToken: boolean; amountIn: bigint };

/** A step that acts (not an approval), with its call decoded (null when no ABI reads it). */
export type ActingStep = FiledStep & { call: DecodedStep | null };

/** What a grading rule reads: the filing's bundle kind, its acting steps, and the first one's function and arguments. */
export type GradingInput = {
  kind: string;
  acting: readonly ActingStep[];
  main: ActingStep | undefined;
  /** The main call's function ("unknown" when nothing reads it). */
  fn: string;
  args: readonly unknown[];
};

/** A bundle kind's grading rule: which rule grades the filing, or why it is not graded. */
export type GradingRule = (input: GradingInput) => ActionPlan;

export const lowerHex = (a: unknown) => String(a).toLowerCase() as Hex;

export const notGraded = (reason: NotGradedReason, action: string): ActionPlan => ({ rule: "not-graded", reason, action });
