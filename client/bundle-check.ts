// The client's check before it signs: the service's own money-safety check (domain/bundles/decode.ts,
// the same function the prepare pipeline runs) on what would be sent — the steps AND the walletSendCalls —
// against an allow-list the caller holds (a pinned deployments file), so a bundle changed on the way (a
// `to`, a spender, a recipient, a value) is refused before any wallet sees it. And the figures (issue 32):
// every deadline within the spec's window of the client's own clock and not past, every minimum output
// above zero and, given the quote shown and the slippage asked, not below what they allow, and every
// amount paid in the one the caller asked for.
import type { Address, Hex } from "viem";
import {
  allowListOf,
  figureViolations,
  lessBps,
  moneySafetyViolations,
  requiresAtomic,
  walletSendCallsViolations,
  type AllowList,
  type AllowListDeployments,
} from "../domain/bundles/index.js";
import { CHAIN_ID } from "../domain/chain.js";
import type { PrepareResult } from "./agent-client.js";
import { sameAddress } from "../domain/address.js";

/** The service's addresses the client trusts: an AllowList (allowListOf), or the deployments file itself. */
export type BundleAllowList = AllowList | AllowListDeployments;

/** A prepared bundle the client refuses to send, with every rule it breaks. */
export class BundleCheckError extends Error {
  override name = "BundleCheckError";
  constructor(readonly violations: readonly string[]) {
    super(`the prepared bundle fails the money-safety check; nothing was sent:\n- ${violations.join("\n- ")}`);
  }
}

const isAllowList = (x: BundleAllowList): x is AllowList => x.contracts instanceof Set;
const toBig = (v: unknown): bigint => {
  try {
    return BigInt(v as string);
  } catch {
    return -1n;
  }
};

/** The spec's deadline window: at most 10 minutes after the bundle is prepared. */
export const DEADLINE_WINDOW_SECONDS = 600;

/** What the caller knows of the figures it is about to sign. */
export type SigningExpectations = {
  /** The client's clock (default: now). Deadlines must be after it and within the window of it. */
  now?: Date;
  /** Clock difference tolerated between the client and the chain, each way (default 30 s). */
  skewSeconds?: number;
  /** The amount the caller asked to pay in, in base units. */
  amount?: bigint;
  /**
   * The quote's output the caller was shown (base units), and the slippage it asked for: the minimum must
   * allow no less. Several outputs (an in-kind redeem: the token, then USDG) give one per minimum, in order.
   */
  quote?: { amountOut: bigint | readonly bigint[]; slippageBps: number };
};

/** The least output a quote of `amountOut` allows at `slippageBps` (rounded down): the service's own formula. */
export const minimumOutOf: (amountOut: bigint, slippageBps: number) => bigint = lessBps;

const floorsOf = ({ amountOut, slippageBps }: NonNullable<SigningExpectations["quote"]>): bigint | bigint[] =>
  typeof amountOut === "bigint" ? minimumOutOf(amountOut, slippageBps) : amountOut.map((out) => minimumOutOf(out, slippageBps));

/** Every way `result` breaks the money-safety rules against `allow` (empty: safe to send). */
export function preparedResultViolations(result: PrepareResult, allow: BundleAllowList, expect: SigningExpectations = {}): string[] {
  const list = isAllowList(allow) ? allow : allowListOf(allow);
  const usdg = isAllowList(allow) ? undefined : (allow.contracts.usdg as Address | undefined);
  const owner = result.owner as Address;
  const steps = result.steps.map((s) => ({ to: s.to as Address, data: s.data as Hex, value: toBig(s.value) }));
  const skew = BigInt(expect.skewSeconds ?? 30);
  const now = BigInt(Math.floor((expect.now ?? new Date()).getTime() / 1000));
  const deadlineWindow = { now: now - skew, seconds: DEADLINE_WINDOW_SECONDS + 2 * Number(skew) };
  const violations = moneySafetyViolations({ steps }, owner, CHAIN_ID, { allow: list, usdg, deadlineWindow });
  violations.push(
    ...figureViolations(steps, {
      amount: expect.amount,
      minimumOut: expect.quote ? floorsOf(expect.quote) : undefined,
    }),
  );
  const calls = result.walletSendCalls;
  for (const v of walletSendCallsViolations(calls as Parameters<typeof walletSendCallsViolations>[0], owner, { allow: list, usdg }))
    if (!violations.includes(v)) violations.push(`walletSendCalls: ${v}`);
  // Both ways of sending must send the same calls, and an approval with its use goes all at once.
  const same =
    calls.calls.length === steps.length &&
    calls.calls.every((c, i) => sameAddress(c.to, steps[i]!.to) && c.data.toLowerCase() === steps[i]!.data.toLowerCase() && toBig(c.value) === steps[i]!.value);
  if (!same) violations.push("walletSendCalls.calls are not the steps");
  if (calls.atomicRequired !== requiresAtomic(calls.calls as { to: Address; data: Hex }[]))
    violations.push(`walletSendCalls.atomicRequired is ${String(calls.atomicRequired)}, not ${String(!calls.atomicRequired)}`);
  return violations;
}

/** Throws BundleCheckError when `result` breaks any rule against `allow` or `expect`. */
export function checkPreparedResult(result: PrepareResult, allow: BundleAllowList, expect?: SigningExpectations): void {
  const violations = preparedResultViolations(result, allow, expect);
  if (violations.length > 0) throw new BundleCheckError(violations);
}
