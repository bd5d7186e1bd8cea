// What a bundle spends against what its owner holds and has approved: the `issues` of a PrepareResult,
// in 0x Swap API v2's shape. Agents prepare first and fund second, so a short balance is reported, not
// refused: the bundle is simulated over a state override that grants the missing balance, and only a
// revert that remains is a refusal. What a bundle spends is read from its approvals: the money-safety
// rules make each one exactly what the steps after it pull (domain/bundles/decode.ts, rule 5).
import { decodeFunctionData, erc20Abi, getAddress, numberToHex, pad, type Address, type PublicClient, type StateOverride } from "viem";
import { balanceKey, findBalanceSlot, simulateBundle, type SimStep, type SimulationResult } from "./simulate.js";

/** Amounts are decimal strings in base units. */
export type BundleIssues = {
  /** The first token the owner holds less of than the bundle spends. */
  balance: { token: Address; actual: string; expected: string } | null;
  /** The owner's allowance to the first spender the bundle approves, when below what it approves (the bundle's own approve fixes it). */
  allowance: { spender: Address; actual: string } | null;
  /** True when the shortfall kept the bundle from being simulated in full (its balance could not be granted by an override). */
  simulationIncomplete: boolean;
};

export type Approval = { token: Address; spender: Address; amount: bigint };

/** The bundle's ERC-20 approvals, in step order. */
export function approvalsOf(steps: readonly SimStep[]): Approval[] {
  const out: Approval[] = [];
  for (const step of steps) {
    try {
      const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data: step.data });
      if (functionName === "approve") out.push({ token: getAddress(step.to), spender: getAddress(args[0]), amount: args[1] });
    } catch {
      /* not an approval */
    }
  }
  return out;
}

type Short = { token: Address; actual: bigint; expected: bigint };

/** Per token, what the approvals spend in all and what the owner holds; the allowance issue. */
async function readFunds(client: PublicClient, owner: Address, approvals: Approval[]): Promise<{ short: Short[]; allowance: BundleIssues["allowance"] }> {
  const spend = new Map<Address, bigint>();
  for (const a of approvals) spend.set(a.token, (spend.get(a.token) ?? 0n) + a.amount);
  const tokens = [...spend.keys()];
  const [balances, allowances] = await Promise.all([
    Promise.all(tokens.map((token) => client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner] }))),
    Promise.all(approvals.map((a) => client.readContract({ address: a.token, abi: erc20Abi, functionName: "allowance", args: [owner, a.spender] }))),
  ]);
  const short = tokens.map((token, i) => ({ token, actual: balances[i]!, expected: spend.get(token)! })).filter((s) => s.actual < s.expected);
  const low = approvals.findIndex((a, i) => allowances[i]! < a.amount);
  return { short, allowance: low === -1 ? null : { spender: approvals[low]!.spender, actual: allowances[low]!.toString() } };
}

/** Overrides that set the owner's balance of each short token to what the bundle spends; the tokens that cannot be granted. */
async function grantsFor(client: PublicClient, owner: Address, short: Short[]): Promise<{ grants: StateOverride; ungranted: number }> {
  const slots = await Promise.all(short.map((s) => findBalanceSlot(client, s.token)));
  const grants: StateOverride = [];
  short.forEach((s, i) => {
    const slot = slots[i];
    if (slot !== null && slot !== undefined)
      grants.push({ address: s.token, stateDiff: [{ slot: balanceKey(slot, owner), value: pad(numberToHex(s.expected), { size: 32 }) }] });
  });
  return { grants, ungranted: short.length - grants.length };
}

export type FundedSimulation = { simulation: SimulationResult; issues: BundleIssues };

/**
 * Simulates the bundle and reads the owner's funds alongside (no round trip more when the owner is
 * funded). A revert with a balance short is simulated again with the balance granted: a revert that
 * remains is the bundle's own (the caller refuses it); with a balance that cannot be granted, the
 * simulation counts as passed with `simulationIncomplete` (nothing tells the shortfall's revert from another).
 */
export async function simulateFunded(client: PublicClient, owner: Address, steps: SimStep[]): Promise<FundedSimulation> {
  const approvals = approvalsOf(steps);
  const [first, funds] = await Promise.all([
    simulateBundle(client, owner, steps),
    approvals.length ? readFunds(client, owner, approvals) : Promise.resolve({ short: [] as Short[], allowance: null }),
  ]);
  const firstShort = funds.short[0];
  const issues: BundleIssues = {
    balance: firstShort ? { token: firstShort.token, actual: firstShort.actual.toString(), expected: firstShort.expected.toString() } : null,
    allowance: funds.allowance,
    simulationIncomplete: false,
  };
  if (first.ok || !firstShort) return { simulation: first, issues };
  const { grants, ungranted } = await grantsFor(client, owner, funds.short);
  const simulation = grants.length ? await simulateBundle(client, owner, steps, grants) : first;
  if (simulation.ok || ungranted === 0) return { simulation, issues };
  return { simulation: { ok: true, method: simulation.method }, issues: { ...issues, simulationIncomplete: true } };
}
