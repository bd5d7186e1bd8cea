// What a bundle spends against what its owner holds and has approved: the `issues` of a PrepareResult,
// in 0x Swap API v2's shape. Agents prepare first and fund second, so a short balance is reported, not
// refused: the bundle is simulated over a state override that grants the missing balance, and only a
// revert that remains is a refusal. What a bundle spends is read from its approvals: the money-safety
// rules make each one exactly what the steps after it pull (domain/bundles/decode.ts, rule 5). A bundle
// that spends another address's funds (an agent account's LADDER call: the account approves itself) names
// them as `spends`, and its shortfall is reported and granted the same way, with that `holder`.
import { decodeFunctionData, erc20Abi, getAddress, numberToHex, pad, type Address, type PublicClient, type StateOverride } from "viem";
import { balanceKey, type ChainSimulator, type SimStep, type SimulationResult } from "./simulate.js";

/** Amounts are decimal strings in base units. */
export type BundleIssues = {
  /** The first token the owner (or `holder`, when another address pays) holds less of than the bundle spends. */
  balance: { token: Address; holder?: Address; actual: string; expected: string } | null;
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

/** What a bundle spends of a token held by an address other than its signer (the address approves it itself). */
export type Spend = { holder: Address; token: Address; amount: bigint };

type Short = { token: Address; holder: Address; actual: bigint; expected: bigint };

/** Per holder and token, what the bundle spends in all and what the holder holds; the allowance issue. */
async function readFunds(
  client: PublicClient,
  owner: Address,
  approvals: Approval[],
  spends: readonly Spend[],
): Promise<{ short: Short[]; allowance: BundleIssues["allowance"] }> {
  const spend = new Map<string, Spend>();
  for (const s of [...approvals.map((a) => ({ holder: owner, token: a.token, amount: a.amount })), ...spends]) {
    const key = `${s.holder.toLowerCase()}:${s.token.toLowerCase()}`;
    spend.set(key, { ...s, amount: (spend.get(key)?.amount ?? 0n) + s.amount });
  }
  const totals = [...spend.values()];
  const [balances, allowances] = await Promise.all([
    Promise.all(totals.map((s) => client.readContract({ address: s.token, abi: erc20Abi, functionName: "balanceOf", args: [s.holder] }))),
    Promise.all(approvals.map((a) => client.readContract({ address: a.token, abi: erc20Abi, functionName: "allowance", args: [owner, a.spender] }))),
  ]);
  const short = totals
    .map((s, i) => ({ token: getAddress(s.token), holder: getAddress(s.holder), actual: balances[i]!, expected: s.amount }))
    .filter((s) => s.actual < s.expected);
  const low = approvals.findIndex((a, i) => allowances[i]! < a.amount);
  return { short, allowance: low === -1 ? null : { spender: approvals[low]!.spender, actual: allowances[low]!.toString() } };
}

/** Overrides that set each holder's balance of each short token to what the bundle spends; the tokens that cannot be granted. */
async function grantsFor(simulator: ChainSimulator, short: Short[]): Promise<{ grants: StateOverride; ungranted: number }> {
  const slots = await Promise.all(short.map((s) => simulator.balanceSlot(s.token)));
  const grants: StateOverride = [];
  short.forEach((s, i) => {
    const slot = slots[i];
    if (slot !== null && slot !== undefined)
      grants.push({ address: s.token, stateDiff: [{ slot: balanceKey(slot, s.holder), value: pad(numberToHex(s.expected), { size: 32 }) }] });
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
export async function simulateFunded(simulator: ChainSimulator, owner: Address, steps: SimStep[], spends: readonly Spend[] = []): Promise<FundedSimulation> {
  const approvals = approvalsOf(steps);
  const [first, funds] = await Promise.all([
    simulator.simulate(owner, steps),
    approvals.length || spends.length ? readFunds(simulator.client, owner, approvals, spends) : Promise.resolve({ short: [] as Short[], allowance: null }),
  ]);
  const firstShort = funds.short[0];
  const issues: BundleIssues = {
    balance: firstShort
      ? {
          token: firstShort.token,
          ...(firstShort.holder === getAddress(owner) ? {} : { holder: firstShort.holder }),
          actual: firstShort.actual.toString(),
          expected: firstShort.expected.toString(),
        }
      : null,
    allowance: funds.allowance,
    simulationIncomplete: false,
  };
  if (first.ok || !firstShort) return { simulation: first, issues };
  const { grants, ungranted } = await grantsFor(simulator, funds.short);
  const simulation = grants.length ? await simulator.simulate(owner, steps, grants) : first;
  if (simulation.ok || ungranted === 0) return { simulation, issues };
  return { simulation: { ok: true, method: simulation.method }, issues: { ...issues, simulationIncomplete: true } };
}
