// Hand-made twins of built steps, for showing that the money-safety check does fail.
import { encodeFunctionData, type Abi, type AbiParameter, type Address, type Hex } from "viem";
import * as abis from "../../../abis/index.js";
import { decodeStep, type CheckedStep } from "../../../domain/bundles/index.js";

const ROLES = new Set(["receiver", "recipient", "owner", "to"]);
const isRole = (p: AbiParameter) => p.type === "address" && ROLES.has((p.name ?? "").replace(/_/g, "").toLowerCase());

/** The step re-encoded with the same function and `mutate`d arguments. */
export function reencode(step: CheckedStep, mutate: (args: unknown[]) => unknown[]): CheckedStep {
  const d = decodeStep(step);
  if (!d) throw new Error("step does not decode");
  const data = encodeFunctionData({ abi: abis[d.contractAbiName] as Abi, functionName: d.functionName, args: mutate([...d.args]) });
  return { ...step, data };
}

/** How many role-named address arguments (receiver, recipient, owner; struct fields too) the step has. */
export function roleCount(step: CheckedStep): number {
  const d = decodeStep(step);
  if (!d) return 0;
  let count = 0;
  const walk = (p: AbiParameter, type: string, value: unknown) => {
    const array = /^(.*)\[\d*\]$/.exec(type);
    if (array) return (value as unknown[]).forEach((v) => walk(p, array[1]!, v));
    if (type === "tuple" && "components" in p) return p.components.forEach((c) => walk(c, c.type, (value as Record<string, unknown>)[c.name!]));
    if (isRole(p)) count++;
  };
  d.inputs.forEach((p, i) => walk(p, p.type, d.args[i]));
  return count;
}

/** The step with its `k`-th role-named address argument set to `other`. */
export function withRole(step: CheckedStep, k: number, other: Address): CheckedStep {
  const d = decodeStep(step)!;
  let seen = 0;
  const walk = (p: AbiParameter, type: string, value: unknown): unknown => {
    const array = /^(.*)\[\d*\]$/.exec(type);
    if (array) return (value as unknown[]).map((v) => walk(p, array[1]!, v));
    if (type === "tuple" && "components" in p) {
      const obj = { ...(value as Record<string, unknown>) };
      for (const c of p.components) obj[c.name!] = walk(c, c.type, obj[c.name!]);
      return obj;
    }
    if (isRole(p) && seen++ === k) return other;
    return value;
  };
  return reencode(step, (args) => d.inputs.map((p, i) => walk(p, p.type, args[i])));
}

// ---- every address argument, whatever its name (the allow-list rules) ----

type Leaf = (p: AbiParameter, type: string, value: unknown) => unknown;

/** `args` of `inputs` with every address leaf passed through `leaf` (struct fields and array elements too). */
function mapAddresses(inputs: readonly AbiParameter[], args: readonly unknown[], leaf: Leaf): unknown[] {
  const walk = (p: AbiParameter, type: string, value: unknown): unknown => {
    const array = /^(.*)\[\d*\]$/.exec(type);
    if (array) return (value as unknown[]).map((v) => walk(p, array[1]!, v));
    if (type === "tuple" && "components" in p) {
      const obj = { ...(value as Record<string, unknown>) };
      for (const c of p.components) obj[c.name!] = walk(c, c.type, obj[c.name!]);
      return obj;
    }
    return type === "address" ? leaf(p, type, value) : value;
  };
  return inputs.map((p, i) => walk(p, p.type, args[i]));
}

/** The agent account's inner call, when the step is `ladder(bytes)`. */
function innerOf(step: CheckedStep): CheckedStep | undefined {
  const d = decodeStep(step);
  return d?.contractAbiName === "agentAccountAbi" && d.functionName === "ladder" ? { to: step.to, data: d.args[0] as Hex, value: 0n } : undefined;
}

/** How many address arguments the step has (the agent account's inner call included). */
export function addressCount(step: CheckedStep): number {
  const d = decodeStep(step);
  if (!d) return 0;
  let count = 0;
  mapAddresses(d.inputs, d.args, (_p, _t, v) => (count++, v));
  const inner = innerOf(step);
  return count + (inner ? addressCount(inner) : 0);
}

/** The step with its `k`-th address argument (outer first, then the inner call's) set to `other`. */
export function withAddress(step: CheckedStep, k: number, other: Address): CheckedStep {
  const d = decodeStep(step)!;
  let seen = 0;
  const outer = reencode(step, (args) => mapAddresses(d.inputs, args, (_p, _t, v) => (seen++ === k ? other : v)));
  if (seen > k) return outer;
  const inner = innerOf(step);
  if (!inner) throw new Error(`step has no address argument ${k}`);
  const changed = withAddress(inner, k - seen, other);
  return reencode(step, () => [changed.data]);
}
