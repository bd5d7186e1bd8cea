// The client's check before it signs: the service's own money-safety check (domain/bundles/decode.ts,
// the same function the prepare pipeline runs) on what would be sent — the steps AND the walletSendCalls —
// against an allow-list the caller holds (a pinned deployments file), so a bundle changed on the way (a
// `to`, a spender, a recipient, a value) is refused before any wallet sees it.
import type { Address, Hex } from "viem";
import {
  allowListOf,
  moneySafetyViolations,
  requiresAtomic,
  walletSendCallsViolations,
  type AllowList,
  type AllowListDeployments,
} from "../domain/bundles/index.js";
import { CHAIN_ID } from "../domain/chain.js";
import type { PrepareResult } from "./agent-client.js";

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

/** Every way `result` breaks the money-safety rules against `allow` (empty: safe to send). */
export function preparedResultViolations(result: PrepareResult, allow: BundleAllowList): string[] {
  const list = isAllowList(allow) ? allow : allowListOf(allow);
  const usdg = isAllowList(allow) ? undefined : (allow.contracts.usdg as Address | undefined);
  const owner = result.owner as Address;
  const steps = result.steps.map((s) => ({ to: s.to as Address, data: s.data as Hex, value: toBig(s.value) }));
  const violations = moneySafetyViolations({ steps }, owner, CHAIN_ID, { allow: list, usdg });
  const calls = result.walletSendCalls;
  for (const v of walletSendCallsViolations(calls as Parameters<typeof walletSendCallsViolations>[0], owner, { allow: list, usdg }))
    if (!violations.includes(v)) violations.push(`walletSendCalls: ${v}`);
  // Both ways of sending must send the same calls, and an approval with its use goes all at once.
  const same =
    calls.calls.length === steps.length &&
    calls.calls.every(
      (c, i) =>
        c.to.toLowerCase() === steps[i]!.to.toLowerCase() && c.data.toLowerCase() === steps[i]!.data.toLowerCase() && toBig(c.value) === steps[i]!.value,
    );
  if (!same) violations.push("walletSendCalls.calls are not the steps");
  if (calls.atomicRequired !== requiresAtomic(calls.calls as { to: Address; data: Hex }[]))
    violations.push(`walletSendCalls.atomicRequired is ${String(calls.atomicRequired)}, not ${String(!calls.atomicRequired)}`);
  return violations;
}

/** Throws BundleCheckError when `result` breaks any rule against `allow`. */
export function checkPreparedResult(result: PrepareResult, allow: BundleAllowList): void {
  const violations = preparedResultViolations(result, allow);
  if (violations.length > 0) throw new BundleCheckError(violations);
}
