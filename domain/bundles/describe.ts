// A bundle's steps in words, for the person who signs them at the sign link: what each call does, to whom,
// and how much, with amounts in whole units and addresses named where the caller knows them. Pure: the
// names (tokens, contracts) come in as arguments; calldata is read with the ABIs in abis/ (decode.ts).
import { formatUnits, getAddress, type AbiParameter, type Address, type Hex } from "viem";
import { decodeStepAll, type AbiName, type DecodedStep } from "./decode.js";

/** A token (or vault share) the steps may name. */
export type DescribeToken = {
  symbol: string;
  decimals: number;
  /** On the service's own token list; an unverified token's symbol is its own, so the page adds its address. */
  verified?: boolean;
};

/** A contract the steps may call or name. */
export type DescribeContract = {
  /** How a sentence names it, e.g. "the Merged WETH/USDG vault". */
  name: string;
  /** The ABI its calls are read with, where a selector is shared (cancel(uint256) on queues and the hook). */
  abi?: AbiName;
  /** A queue's or router's vault: whose shares it takes. */
  vault?: Address;
  /** A vault's paired (merged, up) or held (stock-token) token: what an in-kind exit pays besides USDG. */
  token?: Address;
};

export type DescribeNames = {
  /** The signing wallet: receivers equal to it read "your wallet". */
  owner: Address;
  usdg: Address;
  /** By address, any case. */
  tokens: Readonly<Record<string, DescribeToken>>;
  contracts: Readonly<Record<string, DescribeContract>>;
};

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

const lower = (a: string) => a.toLowerCase();
const big = (x: unknown): bigint => (typeof x === "bigint" ? x : 0n);
const field = (x: unknown, name: string): unknown => (x !== null && typeof x === "object" ? (x as Record<string, unknown>)[name] : undefined);
const asAddress = (x: unknown): Address | undefined => (typeof x === "string" && /^0x[0-9a-fA-F]{40}$/.test(x) ? getAddress(x) : undefined);

/** "1234567.5" -> "1,234,567.5": the exact value, grouped for reading (never rounded: it is money). */
export function groupDigits(decimal: string): string {
  const [whole = "0", fraction] = decimal.split(".");
  const sign = whole.startsWith("-") ? "-" : "";
  const digits = whole.replace("-", "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}${digits}${fraction ? `.${fraction}` : ""}`;
}

const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;

/** The words of one set of names: tokens, amounts, prices and contracts. */
function wordsOf(names: DescribeNames) {
  const token = (address: unknown): DescribeToken | undefined => (typeof address === "string" ? names.tokens[lower(address)] : undefined);
  const symbolOf = (address: unknown): string => {
    const t = token(address);
    const a = asAddress(address);
    if (!t) return a ? `token ${a}` : "an unknown token";
    return t.verified === false && a ? `${t.symbol} (unverified token ${a})` : t.symbol;
  };
  const amount = (value: bigint, address: unknown): string => {
    const t = token(address);
    if (!t) return `${groupDigits(value.toString())} base units of ${symbolOf(address)}`;
    return `${groupDigits(formatUnits(value, t.decimals))} ${symbolOf(address)}`;
  };
  const contract = (address: unknown): string => {
    const a = asAddress(address);
    if (!a) return "an unknown contract";
    return names.contracts[lower(a)]?.name ?? `the contract ${a}`;
  };
  /** USDG per whole token from a priceX18 (18 decimals). */
  const price = (priceX18: bigint, of: unknown) => `${groupDigits(formatUnits(priceX18, 18))} USDG per ${token(of)?.symbol ?? symbolOf(of)}`;
  const who = (address: unknown): string => {
    const a = asAddress(address);
    if (!a) return "an unknown address";
    return lower(a) === lower(names.owner) ? `your wallet (${short(a)})` : `${a}, which is NOT your wallet`;
  };
  return { token, symbolOf, amount, contract, price, who };
}

type Words = ReturnType<typeof wordsOf>;
type Said = { action: string; summary: string; details?: string[] };
type Describer = (args: readonly unknown[], to: Address, w: Words, names: DescribeNames) => Said;

/** The sides a ladder-strategy mask names: bit 0 the token side, bit 1 the USDG side. */
function sidesOfMask(mask: unknown): string {
  const m = Number(typeof mask === "number" ? mask : big(mask));
  return m === 3 ? "both sides (token and USDG)" : m === 1 ? "the token side" : m === 2 ? "the USDG side" : "neither side";
}

/** The vault a call on `to` is about: a vault itself, or the vault of its queue or router. */
const vaultOf = (to: Address, names: DescribeNames): Address => names.contracts[lower(to)]?.vault ?? to;
const shares = (value: bigint, vault: Address, w: Words) => (w.token(vault) ? w.amount(value, vault) : `${groupDigits(value.toString())} base units of shares`);

const describers: Record<string, Describer> = {
  "testTokenAbi.approve": ([spender, value], to, w) => ({
    action: "Approve",
    summary: `Approve ${w.amount(big(value), to)} to ${w.contract(spender)}`,
    details: [`An exact approval: ${w.contract(spender)} may take this amount once, and no more.`],
  }),

  // merged vaults
  "mergedVaultAbi.requestDeposit": ([assets, receiver, minShares], to, w, n) => ({
    action: "Deposit",
    summary: `Deposit ${w.amount(big(assets), n.usdg)} into ${w.contract(to)}`,
    details: [`At least ${shares(big(minShares), to, w)}, to ${w.who(receiver)}.`, "The deposit waits in the vault's queue until its keeper settles it."],
  }),
  "mergedVaultAbi.cancelDeposit": ([id], to, w) => ({
    action: "Cancel deposit",
    summary: `Cancel deposit request #${big(id)} in ${w.contract(to)}`,
    details: ["The request's USDG comes back to the wallet that made it."],
  }),
  "mergedVaultAbi.redeem": ([amount, receiver, minUsdgOut], to, w, n) => ({
    action: "Withdraw",
    summary: `Withdraw ${shares(big(amount), to, w)} from ${w.contract(to)} in USDG`,
    details: [`At least ${w.amount(big(minUsdgOut), n.usdg)}, to ${w.who(receiver)}.`],
  }),
  "mergedVaultAbi.redeemInKind": ([amount, receiver, minTokenOut, minUsdgOut], to, w, n) => ({
    action: "Withdraw in kind",
    summary: `Withdraw ${shares(big(amount), to, w)} from ${w.contract(to)} in kind`,
    details: [`At least ${inKindOut(big(minTokenOut), to, w, n)} and ${w.amount(big(minUsdgOut), n.usdg)}, to ${w.who(receiver)}.`],
  }),
  "redeemQueueAbi.request": ([amount, receiver, minAssetsOut], to, w, n) => ({
    action: "Queue withdrawal",
    summary: `Queue a withdrawal of ${shares(big(amount), vaultOf(to, n), w)} at ${w.contract(to)}`,
    details: [`At least ${w.amount(big(minAssetsOut), n.usdg)} when it is settled, to ${w.who(receiver)}.`],
  }),
  "redeemQueueAbi.cancel": ([id], to, w) => ({
    action: "Cancel withdrawal",
    summary: `Cancel queued withdrawal #${big(id)} at ${w.contract(to)}`,
    details: ["The queued shares come back to the wallet that queued them."],
  }),

  // up vaults
  "upDepositQueueAbi.requestDeposit": ([assets, owner, minimumSharesOut], to, w, n) => ({
    action: "Deposit",
    summary: `Deposit ${w.amount(big(assets), n.usdg)} into ${w.contract(vaultOf(to, n))} through ${w.contract(to)}`,
    details: [
      `At least ${shares(big(minimumSharesOut), vaultOf(to, n), w)}, to ${w.who(owner)}.`,
      "The deposit waits in the queue until its keeper settles it.",
    ],
  }),
  "upDepositQueueAbi.cancel": ([id], to, w) => ({
    action: "Cancel deposit",
    summary: `Cancel deposit request #${big(id)} at ${w.contract(to)}`,
    details: ["The request's USDG comes back to the wallet that made it."],
  }),
  "upWithdrawalQueueAbi.requestRedeem": ([amount, owner, minimumAssetsOut], to, w, n) => ({
    action: "Queue withdrawal",
    summary: `Queue a withdrawal of ${shares(big(amount), vaultOf(to, n), w)} at ${w.contract(to)}`,
    details: [`At least ${w.amount(big(minimumAssetsOut), n.usdg)} when it is settled, to ${w.who(owner)}.`],
  }),
  "upWithdrawalQueueAbi.cancel": ([id], to, w) => ({
    action: "Cancel withdrawal",
    summary: `Cancel queued withdrawal #${big(id)} at ${w.contract(to)}`,
    details: ["The queued shares come back to the wallet that queued them."],
  }),
  "upVaultAbi.redeemEmergencyInKind": ([exit], to, w, n) => ({
    action: "Withdraw in kind",
    summary: `Withdraw ${shares(big(field(exit, "shares")), to, w)} from ${w.contract(to)} in kind`,
    details: [
      `At least ${inKindOut(big(field(exit, "minTokenOut")), to, w, n)} and ${w.amount(big(field(exit, "minUsdgOut")), n.usdg)}, to ${w.who(field(exit, "receiver"))}.`,
    ],
  }),

  // stock-token vaults
  "stockVaultRouterAbi.deposit": ([entry], to, w, n) => ({
    action: "Deposit",
    summary: `Deposit ${w.amount(big(field(entry, "usdgIn")), n.usdg)} into ${w.contract(field(entry, "vault"))} through ${w.contract(to)}`,
    details: [`At least ${shares(big(field(entry, "minShares")), asAddress(field(entry, "vault")) ?? to, w)}, to ${w.who(field(entry, "receiver"))}.`],
  }),
  "stockVaultRouterAbi.withdrawUSDG": ([vault, amount, minUsdgOut, receiver], to, w, n) => ({
    action: "Withdraw",
    summary: `Withdraw ${shares(big(amount), asAddress(vault) ?? to, w)} from ${w.contract(vault)} in USDG, through ${w.contract(to)}`,
    details: [`At least ${w.amount(big(minUsdgOut), n.usdg)}, to ${w.who(receiver)}.`],
  }),
  "stockVaultAbi.redeem": ([amount, receiver, owner], to, w, n) => ({
    action: "Withdraw in kind",
    summary: `Withdraw ${shares(big(amount), to, w)} from ${w.contract(to)} in kind`,
    details: [`The ${w.symbolOf(n.contracts[lower(to)]?.token)} goes to ${w.who(receiver)}; the shares are taken from ${w.who(owner)}.`],
  }),

  // limit orders
  "limitOrderHookAbi.create": ([token, sellToken, amountIn, priceX18], to, w, n) => ({
    action: "Limit order",
    summary:
      sellToken === true
        ? `Place a limit order on ${w.contract(to)}: sell ${w.amount(big(amountIn), token)} at ${w.price(big(priceX18), token)}`
        : `Place a limit order on ${w.contract(to)}: buy ${w.symbolOf(token)} with ${w.amount(big(amountIn), n.usdg)} at ${w.price(big(priceX18), token)}`,
    details: ["The order is yours: it fills when the market reaches the price, and you claim the proceeds. The hook takes a commission on fills."],
  }),
  "limitOrderHookAbi.createMarketOrder": ([token, sellToken, amountIn, minAmountOut], to, w, n) => ({
    action: "Market order",
    summary:
      sellToken === true
        ? `Sell ${w.amount(big(amountIn), token)} now on ${w.contract(to)}, for at least ${w.amount(big(minAmountOut), n.usdg)}`
        : `Buy ${w.symbolOf(token)} with ${w.amount(big(amountIn), n.usdg)} now on ${w.contract(to)}, for at least ${w.amount(big(minAmountOut), token)}`,
    details: ["The order fills at once at the market price, or the transaction fails."],
  }),
  "limitOrderHookAbi.cancel": ([id], to, w) => ({
    action: "Cancel order",
    summary: `Cancel limit order #${big(id)} on ${w.contract(to)}`,
    details: ["What is not filled becomes claimable by you."],
  }),
  "limitOrderHookAbi.claim0": ([id], to, w) => ({ action: "Claim", summary: `Claim the first token of limit order #${big(id)} on ${w.contract(to)}` }),
  "limitOrderHookAbi.claim1": ([id], to, w) => ({ action: "Claim", summary: `Claim the second token of limit order #${big(id)} on ${w.contract(to)}` }),
  "limitOrderHookAbi.claimBoth": ([id], to, w) => ({ action: "Claim", summary: `Claim everything limit order #${big(id)} holds for you on ${w.contract(to)}` }),
  "limitOrderHookAbi.realize": ([id], to, w) => ({ action: "Realize", summary: `Realize the filled part of limit order #${big(id)} on ${w.contract(to)}` }),

  // grids
  "gridStrategyAbi.open": ([p], to, w, n) => gridOpen(p, to, w, n),
  "gridStrategyAbi.openWithMarket": ([p, minTokenOut], to, w, n) => {
    const said = gridOpen(p, to, w, n);
    return {
      ...said,
      details: [
        ...(said.details ?? []),
        `It first buys ${w.symbolOf(field(p, "token"))} at the market price: at least ${w.amount(big(minTokenOut), field(p, "token"))}.`,
      ],
    };
  },
  "gridStrategyAbi.close": ([id], to, w) => ({
    action: "Close grid",
    summary: `Close grid #${big(id)} on ${w.contract(to)}`,
    details: ["What it holds comes back to you."],
  }),
  "gridStrategyAbi.setRepeat": ([id, repeat], to, w) => ({
    action: "Set repeat",
    summary: `${repeat === true ? "Turn on" : "Turn off"} repeating for grid #${big(id)} on ${w.contract(to)}`,
  }),
  "gridStrategyAbi.collect": ([id], to, w) => ({ action: "Collect", summary: `Collect the proceeds of grid #${big(id)} on ${w.contract(to)}` }),

  // ladder strategies
  "ladderStrategyAbi.open": ([token, legs, sellFirst, repeat, oneWay], to, w, n) => {
    const list = Array.isArray(legs) ? legs : [];
    const paidIn = sellFirst === true ? token : n.usdg;
    const total = list.reduce((sum: bigint, leg: unknown) => sum + big(field(leg, "amount")), 0n);
    return {
      action: "Ladder strategy",
      summary: `Open a ladder strategy on ${w.symbolOf(token)} with ${list.length} part${list.length === 1 ? "" : "s"} and ${w.amount(total, paidIn)} in all, on ${w.contract(to)}`,
      details: [
        ...list.map(
          (leg, i) =>
            `Part ${i + 1}: ${w.amount(big(field(leg, "amount")), paidIn)}, buy at ${w.price(big(field(leg, "buyPriceX18")), token)}, sell at ${w.price(big(field(leg, "sellPriceX18")), token)}.`,
        ),
        `${sellFirst === true ? "Sells first" : "Buys first"}; ${repeat === true ? "repeats" : "runs once"}${oneWay === true ? "; one way" : ""}.`,
      ],
    };
  },
  "ladderStrategyAbi.close": ([id, mask], to, w) => ({
    action: "Close ladder",
    summary: `Close ladder strategy #${big(id)} on ${w.contract(to)}`,
    details: [
      Number(mask) === 0
        ? "Every part stops; the funds stay there to collect later."
        : `Every part stops, and what it holds on ${sidesOfMask(mask)} is paid out to you now.`,
    ],
  }),
  "ladderStrategyAbi.setRepeat": ([id, mask], to, w) => ({
    action: "Set repeat",
    summary: `Make ladder strategy #${big(id)} on ${w.contract(to)} repeat on ${sidesOfMask(mask)}`,
    details: ["A part back on a repeating side trades again; on the other side it finishes."],
  }),
  "ladderStrategyAbi.collect": ([id, mask], to, w) => ({
    action: "Collect",
    summary: `Collect what ladder strategy #${big(id)} on ${w.contract(to)} holds for you on ${sidesOfMask(mask)}`,
  }),

  // swaps and baskets
  "swapRouterAbi.swap": ([req], to, w) => ({
    action: "Swap",
    summary: `Swap ${w.amount(big(field(req, "amountIn")), field(req, "tokenIn"))} for at least ${w.amount(big(field(req, "minAmountOut")), field(req, "tokenOut"))} through ${w.contract(to)}`,
    details: [`The output goes to ${w.who(field(req, "recipient"))}, after the 0.1% swap fee.`],
  }),
  "basketZapAbi.buy": ([pool, tokenIn, amountIn, legs, minBptOut, recipient, deadline], to, w) => ({
    action: "Buy basket",
    summary: `Buy ${w.symbolOf(pool)} with ${w.amount(big(amountIn), tokenIn)} through ${w.contract(to)}`,
    details: [
      `At least ${w.amount(big(minBptOut), pool)}, to ${w.who(recipient)}.`,
      `${Array.isArray(legs) ? legs.length : 0} trades through the swap aggregator; valid until ${deadlineOf(deadline)}.`,
    ],
  }),
  "basketZapAbi.sell": ([pool, bptIn, tokenOut, legs, minOut, recipient, deadline], to, w) => ({
    action: "Sell basket",
    summary: `Sell ${w.amount(big(bptIn), pool)} for at least ${w.amount(big(minOut), tokenOut)} through ${w.contract(to)}`,
    details: [
      `The output goes to ${w.who(recipient)}.`,
      `${Array.isArray(legs) ? legs.length : 0} trades through the swap aggregator; valid until ${deadlineOf(deadline)}.`,
    ],
  }),
  "basketMakerAbi.make": ([basket, tokenIn, amountIn, legs, minBptOut, recipient, deadline], to, w) => {
    const tokens = field(basket, "tokens");
    const weights = field(basket, "normalizedWeights");
    const list = Array.isArray(tokens) ? tokens : [];
    const ws = Array.isArray(weights) ? weights : [];
    return {
      action: "Make basket",
      summary: `Make the basket ${String(field(basket, "name"))} (${String(field(basket, "symbol"))}) with a first deposit of ${w.amount(big(amountIn), tokenIn)}, through ${w.contract(to)}`,
      details: [
        `Holds ${list.map((t, i) => `${w.symbolOf(t)} ${groupDigits(formatUnits(big(ws[i]) * 100n, 18))}%`).join(", ")}. The name, tokens, weights and fee are permanent.`,
        `At least ${groupDigits(formatUnits(big(minBptOut), 18))} basket tokens, to ${w.who(recipient)}.`,
        `${Array.isArray(legs) ? legs.length : 0} trades through the swap aggregator; valid until ${deadlineOf(deadline)}.`,
      ],
    };
  },
};

function gridOpen(p: unknown, to: Address, w: Words, n: DescribeNames): Said {
  const token = field(p, "token");
  return {
    action: "Grid",
    summary: `Open a grid on ${w.symbolOf(token)} with ${w.amount(big(field(p, "amountUsdg")), n.usdg)} on ${w.contract(to)}: buy at ${w.price(big(field(p, "buyPriceX18")), token)}, sell at ${w.price(big(field(p, "sellPriceX18")), token)}`,
    details: [field(p, "repeat") === true ? "It repeats: after each sell it buys again at the buy line." : "It runs once: one buy, then one sell."],
  };
}
function inKindOut(value: bigint, vault: Address, w: Words, n: DescribeNames): string {
  const token = n.contracts[lower(vault)]?.token;
  return token ? w.amount(value, token) : `${groupDigits(value.toString())} base units of the vault's token`;
}

function deadlineOf(deadline: unknown): string {
  const seconds = Number(big(deadline));
  return Number.isFinite(seconds) && seconds > 0 && seconds < 1e11 ? new Date(seconds * 1000).toISOString() : String(deadline);
}

/** The reading of the calldata under the called contract's ABI when the names give it, else the first (ERC-20 first). */
function reading(step: DescribeStepParameters, names: DescribeNames): DecodedStep | undefined {
  const all = decodeStepAll({ data: step.data as Hex });
  const abi = names.contracts[lower(step.to)]?.abi;
  return (
    (abi && all.find((r) => r.contractAbiName === abi && describers[`${r.contractAbiName}.${r.functionName}`])) ||
    all.find((r) => describers[`${r.contractAbiName}.${r.functionName}`]) ||
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
  if (decoded.contractAbiName === "agentAccountAbi" && decoded.functionName === "ladder") {
    const inner = decodeStepAll({ data: decoded.args[0] as Hex }).find((r) => r.contractAbiName === "ladderStrategyAbi");
    const describe = inner && describers[`ladderStrategyAbi.${inner.functionName}`];
    const ladder = Object.entries(names.contracts).find(([, c]) => c.abi === "ladderStrategyAbi")?.[0];
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

  const describe = describers[`${decoded.contractAbiName}.${decoded.functionName}`];
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
