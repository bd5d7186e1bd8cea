// A bundle's steps in words, for the person who signs them at the sign link: what each call does, to whom,
// and how much, with amounts in whole units and addresses named where the caller knows them. Pure: the
// names (tokens, contracts) come in as arguments; calldata is read with the ABIs in abis/ (decode.ts).
import { getAddress, type AbiParameter, type Address, type Hex } from "viem";
import { decodeStepAll, type DecodedStep } from "./decode.js";
import { productCalls } from "../products/index.js";
import { big, type AbiName } from "./call.js";
import { lower, wordsOf, type DescribeNames, type Describer } from "./words.js";

export type { DescribeContract, DescribeNames, DescribeToken } from "./words.js";
export { groupDigits } from "./words.js";

export type StepDescription = {
  /** A short name of the action: "Approve", "Deposit", "Limit order"... */
  action: string;
  /** One sentence: what, to whom, how much. */
  summary: string;
  /** Further lines: minimums, prices, parts, where the proceeds go. */
  details: string[];
  /** The called contract, checksummed, and its name where known. */
  to: Address;
  toName: string | null;
  /** An ERC-20 approve (sent first). */
  approval: boolean;
  /** False when no ABI in abis/ reads the calldata. */
  known: boolean;
};

export type DescribeStepParameters = { to: string; data: Hex | string };

/** ERC-20 approve, every product's; every other call's words are its product's (domain/products/<product>/calls.ts). */
const approve: Describer = ([spender, value], to, w) => ({
  action: "Approve",
  summary: `Approve ${w.amount(big(value), to)} to ${w.contract(spender)}`,
  details: [`An exact approval: ${w.contract(spender)} may take this amount once, and no more.`],
});

const describers = new Map<string, Describer>([["testTokenAbi.approve", approve]]);
/** Calls that carry another (the agent account's ladder call): the carried calls' ABI, by the carrier's key. */
const carriers = new Map<string, AbiName>();
for (const [key, call] of productCalls) {
  if ("carries" in call) carriers.set(key, call.carries.abi);
  else if (!describers.has(key)) describers.set(key, call.words);
}

/** The reading of the calldata under the called contract's ABI when the names give it, else the first (ERC-20 first). */
function reading(step: DescribeStepParameters, names: DescribeNames): DecodedStep | undefined {
  const all = decodeStepAll({ data: step.data as Hex });
  const abi = names.contracts[lower(step.to)]?.abi;
  return (
    (abi && all.find((r) => r.contractAbiName === abi && describers.get(`${r.contractAbiName}.${r.functionName}`))) ||
    all.find((r) => describers.get(`${r.contractAbiName}.${r.functionName}`)) ||
    all[0]
  );
}

/** One step in words. */
export function describeStep(step: DescribeStepParameters, names: DescribeNames): StepDescription {
  const to = getAddress(step.to);
  const w = wordsOf(names);
  const token = names.tokens[lower(to)];
  const toName = names.contracts[lower(to)]?.name ?? (token ? `the ${w.symbolOf(to)} token` : null);
  const base = { to, toName, details: [] as string[] };
  const decoded = reading(step, names);
  if (!decoded) return { ...base, action: "Unknown call", summary: `Call ${w.contract(to)} with data the service cannot read`, approval: false, known: false };

  // The agent account's ladder call carries a ladder-strategy call: described as that, sent through the account.
  const carried = carriers.get(`${decoded.contractAbiName}.${decoded.functionName}`);
  if (carried) {
    const inner = decodeStepAll({ data: decoded.args[0] as Hex }).find((r) => r.contractAbiName === carried);
    const describe = inner && describers.get(`${carried}.${inner.functionName}`);
    const ladder = Object.entries(names.contracts).find(([, c]) => c.abi === carried)?.[0];
    if (!inner || !describe)
      return {
        ...base,
        action: "Agent account call",
        summary: `Call ${w.contract(to)} with a ladder call the service cannot read`,
        approval: false,
        known: false,
      };
    const said = describe(inner.args, getAddress(ladder ?? to), w, names);
    return {
      ...base,
      action: said.action,
      summary: `Through your agent account ${toName ? `(${toName})` : to}: ${lowerFirst(said.summary)}`,
      details: said.details ?? [],
      approval: false,
      known: true,
    };
  }

  const describe = describers.get(`${decoded.contractAbiName}.${decoded.functionName}`);
  if (!describe) {
    return {
      ...base,
      action: decoded.functionName,
      summary: `Call ${decoded.functionName}(${decoded.inputs.map((p: AbiParameter) => p.name).join(", ")}) on ${w.contract(to)}`,
      approval: false,
      known: true,
    };
  }
  const said = describe(decoded.args, to, w, names);
  return {
    ...base,
    action: said.action,
    summary: said.summary,
    details: said.details ?? [],
    approval: decoded.contractAbiName === "testTokenAbi" && decoded.functionName === "approve",
    known: true,
  };
}

/** Every step in words, in the bundle's order. */
export function describeSteps(steps: readonly DescribeStepParameters[], names: DescribeNames): StepDescription[] {
  return steps.map((s) => describeStep(s, names));
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
