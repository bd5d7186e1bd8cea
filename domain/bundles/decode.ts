// Reading bundles back: decode a step with the ABIs in abis/, and the money-safety check that the tests and
// the API's self-check run on every bundle before it is answered. Pure: no I/O.
//
// Rules of `moneySafetyViolations` (each broken rule is one line of the answer):
//  1. The chain id is 4663 (0x1237).
//  2. Every step has value 0.
//  3. Every step's calldata decodes with an ABI in abis/ and is one of the agent actions (the functions the
//     builders call: the wallet-policy allow-list plus the stock-token deposit, the up in-kind exit, swaps,
//     basket make and ladder strategies). The agent account's `ladder(bytes)` must carry a LadderStrategy
//     open, close, setRepeat or collect, which is checked the same way.
//  4. Every address argument named receiver, recipient, owner or to (underscores ignored; struct fields and
//     array elements too) is `owner`. Where one selector decodes under several ABIs (the same signature,
//     other names), each ABI's names are checked.
//  5. Approvals are exact: an ERC-20 approve is never max uint256; the steps after it that pull from the
//     spender (its `to` is the spender) spend exactly the approved amount in all, of the approved token
//     where the call names it; no pulling step is without an approval before it; no approval is replaced
//     or left with anything unspent. What a step pulls: requestDeposit assets, router deposit usdgIn,
//     withdrawUSDG shares, queue request/requestRedeem shares, hook create/createMarketOrder amountIn, grid
//     open/openWithMarket amountUsdg, ladder open the legs' total, swap amountIn, zap buy amountIn, zap sell
//     bptIn, maker make amountIn.
//  6. With the `deadlineWindow` option (the time the bundle is prepared at): every unsigned argument named
//     deadline (struct fields too) is after that time and at most `seconds` past it (the zap and maker: 600).
// With the `allow` option (allow-list.ts: the service's contracts, and the tokens of the deployments and the
// request), the addresses too — the pipeline and the typed client pass it:
//  7. Every step's `to` is one of the contracts; an ERC-20 approve's `to` (the approved token) may also be a token.
//  8. Every approval's spender is one of the contracts AND the `to` of a later pulling step of the bundle (a
//     step rule 5 counts as spending an approval): approvals go only to the service contract the bundle uses.
//  9. Every address-typed argument, at any depth (struct fields, arrays, the agent account's inner call), is
//     the owner, one of the contracts or one of the tokens.
import { CHAIN_ID, CHAIN_ID_HEX } from "../chain.js";
import { decodeAbiParameters, getAddress, maxUint256, toFunctionSelector, type Abi, type AbiFunction, type AbiParameter, type Address, type Hex } from "viem";
import * as abis from "../../abis/index.js";
import type { AllowList } from "./allow-list.js";
import { sameAddress } from "../address.js";
import { productCalls } from "../products/index.js";
import { addr, big, type AbiName, type DecodedStep, type SpendRule } from "./call.js";

export type { AbiName, DecodedStep } from "./call.js";

/** A step as the check sees it: any value, so that a wrong one can be reported. */
export type CheckedStep = { to: Address; data: Hex; value: bigint };

// The ERC-20 ABI first, so that approve (the same selector on every token, vault share and basket) reads as such.
const abiOrder: AbiName[] = ["testTokenAbi", ...(Object.keys(abis) as AbiName[]).filter((n) => n !== "testTokenAbi")];

type Entry = { abiName: AbiName; item: AbiFunction };
const bySelector = new Map<Hex, Entry[]>();
for (const abiName of abiOrder) {
  for (const item of abis[abiName] as Abi) {
    if (item.type !== "function") continue;
    const selector = toFunctionSelector(item);
    const list = bySelector.get(selector) ?? [];
    list.push({ abiName, item });
    bySelector.set(selector, list);
  }
}

function selectorOf(data: Hex): Hex {
  return data.slice(0, 10).toLowerCase() as Hex;
}

function decodeWith(entry: Entry, data: Hex): DecodedStep | null {
  try {
    // The selector is matched already (bySelector): decode the arguments only, as decodeFunctionData would.
    const args = decodeAbiParameters(entry.item.inputs, `0x${data.slice(10)}`);
    return { contractAbiName: entry.abiName, functionName: entry.item.name, args, inputs: entry.item.inputs };
  } catch {
    return null;
  }
}

/** Every reading of the calldata under the ABIs in abis/ (one per ABI whose function has its selector). */
export function decodeStepAll(step: { data: Hex }): DecodedStep[] {
  if (typeof step.data !== "string" || step.data.length < 10) return [];
  const entries = bySelector.get(selectorOf(step.data)) ?? [];
  return entries.map((e) => decodeWith(e, step.data)).filter((d): d is DecodedStep => d !== null);
}

/** The step's call, decoded with the first ABI in abis/ that reads it (ERC-20 first), or null when none does. */
export function decodeStep(step: { data: Hex }): DecodedStep | null {
  return decodeStepAll(step)[0] ?? null;
}

// ---- agent actions and what they pull ----

const fn = (abiName: AbiName, functionName: string): Entry => {
  const item = (abis[abiName] as Abi).find((x): x is AbiFunction => x.type === "function" && x.name === functionName);
  if (!item) throw new Error(`${abiName} has no function ${functionName}`);
  return { abiName, item };
};
const sel = (e: Entry) => toFunctionSelector(e.item);
const callOf = (key: string) => fn(...(key.split(".") as [AbiName, string]));

const approveSelector = sel(fn("testTokenAbi", "approve"));

/** The functions a bundle may call from the owner's wallet: ERC-20 approve, and every product's calls (domain/products/). */
export const agentActions: readonly (readonly [AbiName, string])[] = [
  ["testTokenAbi", "approve"],
  ...productCalls.map(([key]) => key.split(".") as [AbiName, string]),
];
const allowedSelectors = new Set<Hex>([approveSelector]);

/** What each pulling call takes (rule 5), by selector; where calls of several ABIs share one, the first product's. */
const spendBySelector = new Map<Hex, SpendRule>();
/** Calls that carry another (the agent account's ladder(bytes)), by selector: the carried calls' ABI, selectors and name. */
const carriers = new Map<Hex, { abi: AbiName; selectors: Set<Hex>; said: string }>();
for (const [key, call] of productCalls) {
  const selector = sel(callOf(key));
  allowedSelectors.add(selector);
  if ("carries" in call) {
    const { abi, functions, said } = call.carries;
    carriers.set(selector, { abi, selectors: new Set(functions.map((f) => sel(fn(abi, f)))), said });
  } else if (call.spend && !spendBySelector.has(selector)) spendBySelector.set(selector, call.spend);
}

/** A carrier's carried call, decoded with the carried ABI (undefined when it is no carrier or nothing reads it). */
function carriedCall(step: { data: Hex }, reading: DecodedStep): DecodedStep | undefined {
  const carrier = carriers.get(selectorOf(step.data));
  return carrier && decodeStepAll({ data: reading.args[0] as Hex }).find((r) => r.contractAbiName === carrier.abi);
}

// ---- the check ----

const ROLE_NAMES = new Set(["receiver", "recipient", "owner", "to"]);
const isRole = (name: string | undefined) => name !== undefined && ROLE_NAMES.has(name.replace(/_/g, "").toLowerCase());

/** A named argument: its path by names (for the message), by positions (the same argument under every ABI
 * that reads the selector), and its value. */
type NamedArgument = { path: string; position: string; value: unknown };
/** Which leaf arguments a walk collects, by name and ABI type. */
type ArgumentMatch = (name: string | undefined, type: string) => boolean;

const roleMatch: ArgumentMatch = (name, type) => type === "address" && isRole(name);
/** Every address-typed argument, whatever its name. */
const addressMatch: ArgumentMatch = (_name, type) => type === "address";
/** `deadline` (underscores and case ignored) as any unsigned integer. */
const deadlineMatch: ArgumentMatch = (name, type) => /^uint\d*$/.test(type) && name !== undefined && name.replace(/_/g, "").toLowerCase() === "deadline";

/** A minimum output (minAmountOut, minShares, minimumSharesOut, minAssetsOut, minBptOut, leg minimums...) as an unsigned integer. */
const minimumMatch: ArgumentMatch = (name, type) =>
  /^uint\d*$/.test(type) &&
  name !== undefined &&
  /^min(imum)?(amountout|amountsout|assetsout|bptout|out|shares|sharesout|tokenout|usdgout)$/.test(name.replace(/_/g, "").toLowerCase());
/** A leg's aggregator calldata: `data` bytes inside an array (the zap's and maker's legs). */
const legDataMatch: ArgumentMatch = (name, type) => type === "bytes" && name === "data";
/** The amount paid in (assets, amountIn, usdgIn, amount) as an unsigned integer. */
const amountMatch: ArgumentMatch = (name, type) =>
  /^uint\d*$/.test(type) && name !== undefined && /^(assets|amountin|usdgin|amount)$/.test(name.replace(/_/g, "").toLowerCase());

/** `amount` less `bps` basis points, rounded down: the least output a quote allows at a slippage (service and client alike). */
export function lessBps(amount: bigint, bps: number): bigint {
  return (amount * (10_000n - BigInt(bps))) / 10_000n;
}

/** What the caller asked for and was shown, for the figures it signs (the typed client knows them). */
export type FigureExpectations = {
  /** The amount the caller asked to pay in (base units): every approval and amount argument must be it. */
  amount?: bigint;
  /**
   * The output the quote shown allows at the caller's slippage: the bundle's minimum output must be at
   * least this. A bundle with several minimums (an in-kind redeem's token and USDG) takes one floor per
   * minimum, in the order the bundle carries them. Every minimum must be above zero regardless.
   */
  minimumOut?: bigint | readonly bigint[];
};

/** Every way the figures of `steps` break `expect`: zero or too-low minimums, other amounts. */
export function figureViolations(steps: readonly { to: Address; data: Hex }[], expect: FigureExpectations): string[] {
  const out: string[] = [];
  const minimums: { label: string; path: string; value: bigint }[] = [];
  steps.forEach((step, index) => {
    const reading = decodeStepAll(step)[0];
    if (!reading) return;
    const label = `step ${index + 1} (${reading.contractAbiName}.${reading.functionName})`;
    const inner = carriedCall(step, reading);
    for (const [r, prefix] of [[reading, ""], ...(inner ? [[inner, "data."] as const] : [])] as const) {
      for (const { path, value } of namedArguments(minimumMatch, r.inputs, r.args, prefix)) {
        minimums.push({ label, path, value: big(value) });
      }
      // A leg's aggregator call (the devnet's aggregator decodes; another's calldata is opaque) holds its own minimum.
      for (const leg of namedArguments(legDataMatch, r.inputs, r.args, prefix)) {
        const call =
          typeof leg.value === "string" ? decodeStepAll({ data: leg.value as Hex }).find((d) => d.contractAbiName === "devAggregatorAbi") : undefined;
        if (!call) continue;
        for (const { path, value } of namedArguments(minimumMatch, call.inputs, call.args, `${leg.path}.`))
          if (big(value) === 0n) out.push(`${label}: ${path} is 0: a leg's minimum output of zero accepts any price`);
      }
      if (expect.amount !== undefined && selectorOf(step.data) !== approveSelector)
        // Legs (array elements) split the amount: only the amount paid in as a whole is the asked one.
        for (const { path, value } of namedArguments(amountMatch, r.inputs, r.args, prefix))
          if (!path.includes("[") && big(value) !== expect.amount)
            out.push(`${label}: ${path} is ${String(value)}, not the amount asked for, ${expect.amount}`);
    }
    if (expect.amount !== undefined && selectorOf(step.data) === approveSelector) {
      const amount = big(reading.args[1]);
      if (amount !== expect.amount) out.push(`${label}: approves ${String(amount)}, not the amount asked for, ${expect.amount}`);
    }
  });
  const floors = expect.minimumOut === undefined ? undefined : typeof expect.minimumOut === "bigint" ? [expect.minimumOut] : expect.minimumOut;
  // A floor without its minimum (or a minimum without its floor) is a bundle other than the one quoted.
  if (floors && floors.length !== minimums.length) out.push(`the bundle carries ${minimums.length} minimum output(s), the quote shown ${floors.length}`);
  minimums.forEach((m, i) => {
    const floor = floors?.[i];
    // Zero accepts any price, unless the quote shown expects nothing of that output (an in-kind redeem of a vault holding no token).
    if (m.value === 0n && floor !== 0n) out.push(`${m.label}: ${m.path} is 0: a minimum output of zero accepts any price`);
    else if (floor !== undefined && m.value < floor)
      out.push(`${m.label}: ${m.path} is ${m.value}, below ${floor} that the quote shown allows at the slippage asked for`);
  });
  return out;
}

/** The leaf arguments `match` picks (struct fields and array elements included). */
function namedArguments(
  match: ArgumentMatch,
  params: readonly AbiParameter[],
  values: readonly unknown[] | Record<string, unknown>,
  prefix = "",
  at = "",
): NamedArgument[] {
  const out: NamedArgument[] = [];
  params.forEach((p, i) => {
    const value = Array.isArray(values) ? values[i] : (values as Record<string, unknown>)[p.name ?? String(i)];
    walk(match, p, p.type, value, prefix + (p.name || `#${i}`), `${at}/${i}`, out);
  });
  return out;
}

function walk(match: ArgumentMatch, p: AbiParameter, type: string, value: unknown, path: string, position: string, out: NamedArgument[]) {
  const array = /^(.*)\[\d*\]$/.exec(type);
  if (array) {
    (Array.isArray(value) ? value : []).forEach((v, j) => walk(match, p, array[1]!, v, `${path}[${j}]`, `${position}/${j}`, out));
    return;
  }
  if (type === "tuple" && "components" in p) {
    out.push(...namedArguments(match, p.components, (value ?? {}) as Record<string, unknown>, `${path}.`, position));
    return;
  }
  if (match(p.name, type)) out.push({ path, position, value });
}

/** The role-named address arguments (receiver, recipient, owner, to). */
const roleArguments = (params: readonly AbiParameter[], values: readonly unknown[] | Record<string, unknown>, prefix = "") =>
  namedArguments(roleMatch, params, values, prefix);

/** Why a deadline is outside (now, now + seconds], or undefined when it is inside. */
function deadlineProblem(value: unknown, window: DeadlineWindow): string | undefined {
  const d = typeof value === "bigint" ? value : undefined;
  if (d === undefined) return `is ${String(value)}, not a number`;
  if (d <= window.now) return `${d} is not after the time now ${window.now}`;
  if (d > window.now + BigInt(window.seconds)) return `${d} is more than ${window.seconds} s after the time now ${window.now}`;
  return undefined;
}

/** The spender an ERC-20 approve step names, or undefined for any other step. */
export function approvedSpender(step: { data: Hex }): Address | undefined {
  if (typeof step.data !== "string" || selectorOf(step.data) !== approveSelector) return undefined;
  return addr(decodeStep(step)?.args[0]);
}

/** The time a bundle is prepared at (unix seconds) and how long its deadlines may run past it. */
export type DeadlineWindow = { now: bigint; seconds: number };

export type MoneySafetyOptions = {
  /** USDG's address: then the token of USDG-paid steps (deposits, buy orders, grids, buy-first ladders) is checked too. */
  usdg?: Address;
  /** Then every argument named `deadline` (struct fields too) must be in (now, now + seconds]. */
  deadlineWindow?: DeadlineWindow;
  /** Then rules 7-9: targets, spenders and every address argument are checked against it (allowListOf). */
  allow?: AllowList;
};

type Allowance = { step: number; token: Address; spender: Address; amount: bigint; remaining: bigint; open: boolean };

/** One bundle's check: what it is checked against, the approvals met so far, and the lines found (each once). */
type SafetyCheck = {
  steps: readonly CheckedStep[];
  owner: Address;
  options: MoneySafetyOptions;
  allowances: Allowance[];
  add: (violation: string) => void;
};

/** A step as the rules read it: its number, its readings (the first names it), selector and label. */
type StepReading = { step: CheckedStep; index: number; n: number; readings: DecodedStep[]; first: DecodedStep; selector: Hex; label: string };

/** Rule 9: an address argument that is neither the owner, a contract nor a token. */
function checkForeign(check: SafetyCheck, label: string, path: string, v: unknown, allow: AllowList): void {
  const a = typeof v === "string" ? v.toLowerCase() : "";
  if (!sameAddress(a, check.owner) && !allow.contracts.has(a) && !allow.tokens.has(a))
    check.add(`${label}: ${path} is ${String(v)}, not the owner, a service contract or a token of the request`);
}

/** Rules 7-9: the target, the spender of an approval and every address argument against the allow-list. */
function checkAllowList(check: SafetyCheck, { step, index, first, selector, label }: StepReading, allow: AllowList): void {
  const target = typeof step.to === "string" ? step.to.toLowerCase() : "";
  const isApprove = selector === approveSelector;
  if (!allow.contracts.has(target) && !(isApprove && allow.tokens.has(target)))
    check.add(`${label}: to ${String(step.to)} is not ${isApprove ? "a token or contract" : "a contract"} of the service`);
  for (const { path, value: v } of namedArguments(addressMatch, first.inputs, first.args)) checkForeign(check, label, path, v, allow);
  if (!isApprove) return;
  const spender = addr(first.args[0]);
  const pulled = check.steps.slice(index + 1).some((s) => sameAddress(s.to, spender) && typeof s.data === "string" && spendBySelector.has(selectorOf(s.data)));
  if (!spender || !allow.contracts.has(spender.toLowerCase()) || !pulled)
    check.add(`${label}: the spender ${String(spender)} is not a service contract that a later step of the bundle pulls with`);
}

/** The owner's roles and the deadlines, each argument once, under the first ABI that names it. */
function checkRolesAndDeadlines(check: SafetyCheck, { readings, label }: StepReading): void {
  const reported = new Set<string>();
  for (const reading of readings) {
    for (const { path, position, value: v } of roleArguments(reading.inputs, reading.args))
      if (!sameAddress(addr(v), check.owner) && !reported.has(position)) {
        reported.add(position);
        check.add(`${label}: ${path} is ${String(v)}, not the owner ${check.owner}`);
      }
  }
  const window = check.options.deadlineWindow;
  if (!window) return;
  const late = new Set<string>();
  for (const reading of readings)
    for (const { path, position, value: v } of namedArguments(deadlineMatch, reading.inputs, reading.args)) {
      const problem = late.has(position) ? undefined : deadlineProblem(v, window);
      if (problem) {
        late.add(position);
        check.add(`${label}: ${path} ${problem}`);
      }
    }
}

/** A carrier's call (the agent account's ladder call): one it may carry, whose roles, addresses and deadlines keep the rules. */
function checkCarriedCall(check: SafetyCheck, { step, first, selector, label }: StepReading): void {
  const { owner, options, add } = check;
  const carrier = carriers.get(selector)!;
  const call = carriedCall(step, first);
  if (!call || !carrier.selectors.has(selectorOf(first.args[0] as Hex))) {
    add(`${label}: the account call is not ${carrier.said}`);
    return;
  }
  for (const { path, value: v } of roleArguments(call.inputs, call.args, "data."))
    if (!sameAddress(addr(v), owner)) add(`${label}: ${path} is ${String(v)}, not the owner ${owner}`);
  if (options.allow)
    for (const { path, value: v } of namedArguments(addressMatch, call.inputs, call.args, "data.")) checkForeign(check, label, path, v, options.allow);
  if (options.deadlineWindow)
    for (const { path, value: v } of namedArguments(deadlineMatch, call.inputs, call.args, "data.")) {
      const problem = deadlineProblem(v, options.deadlineWindow);
      if (problem) add(`${label}: ${path} ${problem}`);
    }
}

/** An approval opens an allowance (closing the same token and spender's, which must be spent exactly by then). */
function openApproval(check: SafetyCheck, { step, n, first, label }: StepReading): void {
  const spender = addr(first.args[0]);
  const amount = big(first.args[1]);
  if (!spender) return;
  for (const a of check.allowances)
    if (a.open && sameAddress(a.token, step.to) && sameAddress(a.spender, spender)) {
      if (a.remaining !== 0n) check.add(`${label}: replaces the approval of step ${a.step} before it is spent exactly`);
      a.open = false;
    }
  if (amount === maxUint256) check.add(`${label}: an unlimited approval to ${spender}`);
  else if (amount > 0n) check.allowances.push({ step: n, token: step.to, spender, amount, remaining: amount, open: true });
}

/** A step that pulls tokens spends the latest open approval to it, never more than is left of it. */
function spendApproval(check: SafetyCheck, { step, first, selector, label }: StepReading): void {
  const rule = spendBySelector.get(selector);
  if (!rule) return;
  const spend = rule(first.args);
  if (spend.amount === 0n) return;
  const token = spend.token === "usdg" ? check.options.usdg : spend.token;
  const match = check.allowances.filter((a) => a.open && sameAddress(a.spender, step.to) && (token === undefined || sameAddress(a.token, token))).at(-1);
  if (!match) {
    check.add(`${label}: pulls ${spend.amount}${token ? ` of ${getAddress(token)}` : ""} with no approval to ${step.to} before it in the bundle`);
    return;
  }
  if (spend.amount > match.remaining) {
    check.add(`${label}: pulls ${spend.amount}, more than the ${match.remaining} left of the approval of step ${match.step}`);
    match.remaining = 0n;
  } else {
    match.remaining -= spend.amount;
  }
}

function checkStep(check: SafetyCheck, step: CheckedStep, index: number): void {
  const n = index + 1;
  let value: bigint;
  try {
    value = BigInt(step.value as unknown as bigint);
  } catch {
    value = -1n;
  }
  if (value !== 0n) check.add(`step ${n}: value is ${String(step.value)}, not 0`);
  const readings = decodeStepAll(step);
  const first = readings[0];
  if (!first) {
    check.add(`step ${n}: calldata to ${step.to} decodes with no ABI in abis/`);
    return;
  }
  const label = `step ${n} (${first.contractAbiName}.${first.functionName})`;
  const selector = selectorOf(step.data);
  const reading: StepReading = { step, index, n, readings, first, selector, label };
  if (!allowedSelectors.has(selector)) check.add(`${label}: not an agent action`);
  if (check.options.allow) checkAllowList(check, reading, check.options.allow);
  checkRolesAndDeadlines(check, reading);
  if (carriers.has(selector)) checkCarriedCall(check, reading);
  if (selector === approveSelector) openApproval(check, reading);
  else spendApproval(check, reading);
}

/**
 * Every way the bundle breaks the money-safety rules (see the top of this file), one line each; empty when
 * it keeps them all. `chainId` is the chain the bundle is for (4663, or as hex "0x1237").
 */
export function moneySafetyViolations(
  bundle: { steps: readonly CheckedStep[] },
  owner: Address,
  chainId: number | bigint | string,
  options: MoneySafetyOptions = {},
): string[] {
  const violations: string[] = [];
  const add = (v: string) => {
    if (!violations.includes(v)) violations.push(v);
  };
  let chain: bigint | undefined;
  try {
    chain = BigInt(chainId);
  } catch {
    chain = undefined;
  }
  if (chain !== BigInt(CHAIN_ID)) add(`chain id ${String(chainId)} is not ${CHAIN_ID} (${CHAIN_ID_HEX})`);
  const check: SafetyCheck = { steps: bundle.steps, owner, options, allowances: [], add };
  bundle.steps.forEach((step, index) => checkStep(check, step, index));
  for (const a of check.allowances)
    if (a.open && a.remaining !== 0n)
      add(`step ${a.step}: the approval of ${a.amount} to ${a.spender} is not spent exactly by the steps after it (${a.remaining} left)`);
  return violations;
}

/** The wallet_sendCalls params checked as they go out: version, chain, `from`, each call's value, then every rule above. */
export function walletSendCallsViolations(
  calls: { version: string; chainId: string; from: string; calls: readonly { to: Address; data: Hex; value: string }[] },
  owner: Address,
  options: MoneySafetyOptions = {},
): string[] {
  const violations: string[] = [];
  if (calls.version !== "2.0.0") violations.push(`version is ${calls.version}, not 2.0.0`);
  if (calls.chainId !== CHAIN_ID_HEX) violations.push(`walletSendCalls chainId is ${calls.chainId}, not ${CHAIN_ID_HEX}`);
  if (!sameAddress(calls.from, owner)) violations.push(`from is ${calls.from}, not the owner ${owner}`);
  const steps = calls.calls.map((c) => {
    let value: bigint;
    try {
      value = BigInt(c.value);
    } catch {
      value = -1n;
    }
    return { to: c.to, data: c.data, value };
  });
  for (const v of moneySafetyViolations({ steps }, owner, calls.chainId, options)) if (!violations.includes(v)) violations.push(v);
  return violations;
}
