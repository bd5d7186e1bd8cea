// Which event confirms each service call a bundle makes: the event its function emits, from the contract it
// calls, for the account that calls it, with the amounts and addresses its calldata names. The indexer
// records an inner call of an atomic batch only when an event of its own transaction confirms it
// (domain/executed-calls.ts), so a batch cannot claim a call it did not make, nor make it for less.
// A call without a row here is never recorded from a batch: a new service call needs its row (a test walks
// every agent action of decode.ts).
import { decodeAbiParameters, toEventSelector, toFunctionSelector, type Abi, type AbiEvent, type AbiFunction, type Address, type Hex } from "viem";
import * as abis from "../../abis/index.js";
import { sameAddress } from "../address.js";

// Not decode.ts's AbiName: the indexer runs this file, and what it imports is in its build id (src/shared-sources.ts).
type AbiName = keyof typeof abis;

/** An event as the indexer sees it: the contract that emitted it, its topic0 and its named arguments. */
export type ConfirmingEvent = { emitter: Address; topic: Hex | undefined; args: Record<string, unknown> };

/** What a decoded call claims: the account that makes it, the contract it calls, its decoded arguments. */
type ClaimedCall = { sender: Address; target: Address; args: readonly unknown[] };
type Check = (call: ClaimedCall, e: Record<string, unknown>) => boolean;
type Rule = { call: readonly [AbiName, string]; event: readonly [AbiName, string]; check: Check };

const f = (x: unknown, name: string): unknown => (x !== null && typeof x === "object" ? (x as Record<string, unknown>)[name] : undefined);
const same = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && sameAddress(a, b);
const isAddress = (x: unknown) => typeof x === "string" && /^0x[0-9a-fA-F]{40}$/.test(x);
const atLeast = (value: unknown, min: unknown) => typeof value === "bigint" && typeof min === "bigint" && value >= min;
const sum = (legs: unknown, name: string) => (Array.isArray(legs) ? legs.reduce((s: bigint, leg: unknown) => s + (f(leg, name) as bigint), 0n) : -1n);

/** The caller owns what the event names (`owner` unless said) and the event carries these exact values. */
const owned =
  (values: (args: readonly unknown[]) => Record<string, unknown>, ownerField = "owner"): Check =>
  (call, e) =>
    same(e[ownerField], call.sender) && Object.entries(values(call.args)).every(([k, v]) => (isAddress(v) ? same(e[k], v) : e[k] === v));
const both =
  (a: Check, b: Check): Check =>
  (call, e) =>
    a(call, e) && b(call, e);

const byId = owned((a) => ({ id: a[0] }));
const request = owned((a) => ({ assets: a[0], receiver: a[1], minShares: a[2] }));
const redeemRequest = owned((a) => ({ shares: a[0], receiver: a[1], minAssetsOut: a[2] }));
const gridOpened = owned((a) => ({
  token: f(a[0], "token"),
  buyPriceX18: f(a[0], "buyPriceX18"),
  sellPriceX18: f(a[0], "sellPriceX18"),
  amountUsdg: f(a[0], "amountUsdg"),
  repeat: f(a[0], "repeat"),
}));

const rules: Rule[] = [
  { call: ["mergedVaultAbi", "requestDeposit"], event: ["mergedVaultAbi", "DepositRequested"], check: request },
  { call: ["upDepositQueueAbi", "requestDeposit"], event: ["upDepositQueueAbi", "DepositRequested"], check: request },
  { call: ["mergedVaultAbi", "cancelDeposit"], event: ["mergedVaultAbi", "DepositCancelled"], check: byId },
  { call: ["upDepositQueueAbi", "cancel"], event: ["upDepositQueueAbi", "DepositCancelled"], check: byId },
  { call: ["redeemQueueAbi", "request"], event: ["redeemQueueAbi", "RedeemRequested"], check: redeemRequest },
  { call: ["upWithdrawalQueueAbi", "requestRedeem"], event: ["upWithdrawalQueueAbi", "RedeemRequested"], check: redeemRequest },
  { call: ["redeemQueueAbi", "cancel"], event: ["redeemQueueAbi", "RedeemCancelled"], check: byId },
  { call: ["upWithdrawalQueueAbi", "cancel"], event: ["upWithdrawalQueueAbi", "RedeemCancelled"], check: byId },
  {
    call: ["mergedVaultAbi", "redeem"],
    event: ["mergedVaultAbi", "Redeemed"],
    check: both(
      owned((a) => ({ shares: a[0], receiver: a[1] })),
      (c, e) => atLeast(e.usdgOut, c.args[2]),
    ),
  },
  {
    call: ["mergedVaultAbi", "redeemInKind"],
    event: ["mergedVaultAbi", "Redeemed"],
    check: both(
      owned((a) => ({ shares: a[0], receiver: a[1] })),
      (c, e) => atLeast(e.tokenOut, c.args[2]) && atLeast(e.usdgOut, c.args[3]),
    ),
  },
  {
    call: ["upVaultAbi", "redeemEmergencyInKind"],
    event: ["upVaultAbi", "Redeemed"],
    check: both(
      owned((a) => ({ shares: f(a[0], "shares"), receiver: f(a[0], "receiver") })),
      (c, e) => atLeast(e.tokenOut, f(c.args[0], "minTokenOut")) && atLeast(e.usdgOut, f(c.args[0], "minUsdgOut")),
    ),
  },
  {
    // ERC-4626 redeem(shares, receiver, owner): the vault's Withdraw names all three.
    call: ["stockVaultAbi", "redeem"],
    event: ["stockVaultAbi", "Withdraw"],
    check: owned((a) => ({ shares: a[0], receiver: a[1], owner: a[2] }), "sender"),
  },
  {
    // The router refunds USDG its route left: the event's usdgIn is at most the call's, and the shares at least its minimum.
    call: ["stockVaultRouterAbi", "deposit"],
    event: ["stockVaultRouterAbi", "RouterDeposit"],
    check: both(
      owned((a) => ({ vault: f(a[0], "vault"), receiver: f(a[0], "receiver") }), "sender"),
      (c, e) => atLeast(f(c.args[0], "usdgIn"), e.usdgIn) && atLeast(e.shares, f(c.args[0], "minShares")) && atLeast(e.shares, 1n),
    ),
  },
  {
    call: ["stockVaultRouterAbi", "withdrawUSDG"],
    event: ["stockVaultRouterAbi", "RouterWithdraw"],
    check: both(
      owned((a) => ({ vault: a[0], shares: a[1], receiver: a[3] }), "sender"),
      (c, e) => atLeast(e.usdgOut, c.args[2]),
    ),
  },
  {
    call: ["limitOrderHookAbi", "create"],
    event: ["limitOrderHookAbi", "OrderPlaced"],
    check: owned((a) => ({ token: a[0], sellToken: a[1], amountIn: a[2], priceX18: a[3], market: false })),
  },
  {
    call: ["limitOrderHookAbi", "createMarketOrder"],
    event: ["limitOrderHookAbi", "OrderPlaced"],
    check: owned((a) => ({ token: a[0], sellToken: a[1], amountIn: a[2], market: true })),
  },
  // OrderClosed's reason: 1 cancelled, 2 realized (LimitOrderHook.sol).
  { call: ["limitOrderHookAbi", "cancel"], event: ["limitOrderHookAbi", "OrderClosed"], check: owned((a) => ({ id: a[0], reason: 1 })) },
  { call: ["limitOrderHookAbi", "realize"], event: ["limitOrderHookAbi", "OrderClosed"], check: owned((a) => ({ id: a[0], reason: 2 })) },
  { call: ["limitOrderHookAbi", "claim0"], event: ["limitOrderHookAbi", "OrderClaimed"], check: byId },
  { call: ["limitOrderHookAbi", "claim1"], event: ["limitOrderHookAbi", "OrderClaimed"], check: byId },
  { call: ["limitOrderHookAbi", "claimBoth"], event: ["limitOrderHookAbi", "OrderClaimed"], check: byId },
  { call: ["gridStrategyAbi", "open"], event: ["gridStrategyAbi", "GridOpened"], check: gridOpened },
  { call: ["gridStrategyAbi", "openWithMarket"], event: ["gridStrategyAbi", "GridOpened"], check: gridOpened },
  { call: ["gridStrategyAbi", "close"], event: ["gridStrategyAbi", "GridClosed"], check: byId },
  { call: ["gridStrategyAbi", "setRepeat"], event: ["gridStrategyAbi", "GridRepeatSet"], check: owned((a) => ({ id: a[0], repeat: a[1] })) },
  { call: ["gridStrategyAbi", "collect"], event: ["gridStrategyAbi", "GridCollected"], check: byId },
  {
    call: ["ladderStrategyAbi", "open"],
    event: ["ladderStrategyAbi", "LadderOpened"],
    check: owned((a) => ({
      token: a[0],
      legs: Array.isArray(a[1]) ? BigInt(a[1].length) : -1n,
      total: sum(a[1], "amount"),
      sellFirst: a[2],
      repeat: a[3],
      oneWay: a[4],
    })),
  },
  { call: ["ladderStrategyAbi", "close"], event: ["ladderStrategyAbi", "LadderClosed"], check: owned((a) => ({ id: a[0], mask: a[1] })) },
  { call: ["ladderStrategyAbi", "setRepeat"], event: ["ladderStrategyAbi", "LadderRepeatSet"], check: owned((a) => ({ id: a[0], mask: a[1] })) },
  { call: ["ladderStrategyAbi", "collect"], event: ["ladderStrategyAbi", "LadderCollected"], check: byId },
  {
    call: ["swapRouterAbi", "swap"],
    event: ["swapRouterAbi", "Swapped"],
    check: both(
      owned((a) => ({ recipient: f(a[0], "recipient"), tokenIn: f(a[0], "tokenIn"), tokenOut: f(a[0], "tokenOut"), amountIn: f(a[0], "amountIn") }), "sender"),
      (c, e) => atLeast(e.amountOut, f(c.args[0], "minAmountOut")),
    ),
  },
  {
    call: ["basketZapAbi", "buy"],
    event: ["basketZapAbi", "ZapBuy"],
    check: both(
      owned((a) => ({ pool: a[0], tokenIn: a[1], amountIn: a[2], recipient: a[5] }), "sender"),
      (c, e) => atLeast(e.bptOut, c.args[4]),
    ),
  },
  {
    call: ["basketZapAbi", "sell"],
    event: ["basketZapAbi", "ZapSell"],
    check: both(
      owned((a) => ({ pool: a[0], bptIn: a[1], tokenOut: a[2], recipient: a[5] }), "sender"),
      (c, e) => atLeast(e.amountOut, c.args[4]),
    ),
  },
  {
    call: ["basketMakerAbi", "make"],
    event: ["basketMakerAbi", "BasketMade"],
    check: owned((a) => ({ name: f(a[0], "name"), symbol: f(a[0], "symbol") }), "creator"),
  },
];

type Entry = { fn: AbiFunction; topic: Hex; check: Check };
const bySelector = new Map<Hex, Entry[]>();
const keys: string[] = [];
for (const r of rules) {
  const fn = (abis[r.call[0]] as Abi).find((x): x is AbiFunction => x.type === "function" && x.name === r.call[1]);
  const event = (abis[r.event[0]] as Abi).find((x): x is AbiEvent => x.type === "event" && x.name === r.event[1]);
  if (!fn || !event) throw new Error(`no ${r.call.join(".")} or no ${r.event.join(".")}`);
  const selector = toFunctionSelector(fn);
  bySelector.set(selector, [...(bySelector.get(selector) ?? []), { fn, topic: toEventSelector(event), check: r.check }]);
  keys.push(r.call.join("."));
}

/** The service calls the table confirms, as `abiName.functionName`. */
export const confirmedCalls: ReadonlySet<string> = new Set(keys);

/** A decoded call the table can confirm: every reading of its calldata that has a row. */
export type ConfirmableCall = { sender: Address; target: Address; readings: { entry: Entry; args: readonly unknown[] }[] };

function readings(data: Hex): ConfirmableCall["readings"] {
  if (typeof data !== "string" || data.length < 10) return [];
  const out: ConfirmableCall["readings"] = [];
  for (const entry of bySelector.get(data.slice(0, 10).toLowerCase() as Hex) ?? []) {
    try {
      out.push({ entry, args: decodeAbiParameters(entry.fn.inputs, `0x${data.slice(10)}`) });
    } catch {
      // Not this function's arguments: no reading.
    }
  }
  return out;
}

/** The call's readings that an event could confirm, or null when no row of the table reads it. */
export function confirmableCall(call: { sender: Address; target: Address; data: Hex }): ConfirmableCall | null {
  const found = readings(call.data);
  return found.length ? { sender: call.sender, target: call.target, readings: found } : null;
}

/** Whether the event confirms the call: its function's event, emitted by the call's target, for its sender, with its amounts. */
export function confirms(call: ConfirmableCall, event: ConfirmingEvent): boolean {
  if (!event.topic || !sameAddress(event.emitter, call.target)) return false;
  return call.readings.some((r) => r.entry.topic === event.topic && r.entry.check({ sender: call.sender, target: call.target, args: r.args }, event.args));
}
