// ladder-strategy: open, close, setRepeat or collect a ladder strategy, from the wallet or through the
// owner's agent account.
import { encodeFunctionData, maxUint256, type Address, type Hex, formatUnits } from "viem";
import { agentAccountAbi, ladderStrategyAbi } from "../../../abis/index.js";
import { BundleError, type Bundle, type BundleErrorDetails } from "../../bundles/types.js";
import { checkAddress, checkBoolean, checkChoice, checkMask, checkUint, required } from "../../bundles/checks.js";
import { approvalParam, approveStep, step } from "../../bundles/steps.js";
import { priceUsd } from "../../format.js";
import { USDG_DECIMALS } from "../../price.js";

export const ladderStrategyActions = ["open", "close", "setRepeat", "collect"] as const;
export type LadderStrategyAction = (typeof ladderStrategyActions)[number];

export const LADDER_STRATEGY_MAX_LEGS = 16;

export type LadderStrategyLeg = {
  /** USDG per whole token in 18 decimals. */
  buyPriceX18: bigint;
  sellPriceX18: bigint;
  /** USDG base units (buy-first) or token base units (sell-first). */
  amount: bigint;
};

/**
 * What the chain says about the market now, for the refusals that name a part and its exact minimum
 * (mirrors LadderStrategy._checkOpen). Without it the builder checks only the shape, and the
 * simulation answers the contract's own refusal.
 */
export type LadderStrategyMarket = {
  /** The pool's price now (priceX18); 0 means no reference. */
  priceX18: bigint;
  /** The token's decimals. */
  decimals: number;
  /** LadderStrategy.minFirstLegUsdg() and minFollowUpUsdg(), USDG base units. */
  minFirstLegUsdg: bigint;
  minFollowUpUsdg: bigint;
  /** LadderStrategy.feeBps(). */
  feeBps: number;
};

export type BuildLadderStrategyParameters = {
  /** The signing wallet; with `via: "account"`, the agent key that the account lets trade. */
  owner: Address;
  /** The LadderStrategy contract. */
  ladder: Address;
  action: LadderStrategyAction;
  /** "wallet" (default): the owner calls the strategy. "account": the agent account's LADDER call. */
  via?: "wallet" | "account";
  /** via account: the agent account. */
  account?: Address;
  /** open from the wallet: USDG (the approval's token unless sellFirst). */
  usdg?: Address;
  /** open: the market's token. */
  token?: Address;
  /** open: 1-16 parts. */
  legs?: readonly LadderStrategyLeg[];
  /** open: the parts start holding the token (approve the token) instead of USDG. */
  sellFirst?: boolean;
  /** open: re-arm after a round trip. */
  repeat?: boolean;
  /** open: each part finishes after its sell. */
  oneWay?: boolean;
  /** close, setRepeat, collect: the ladder's id. */
  id?: bigint;
  /** close: 0-3; setRepeat, collect: 1-3 (bit 0 the token side, bit 1 the USDG side). */
  mask?: number;
  /** open: the market now, for the part-naming refusals. */
  market?: LadderStrategyMarket;
};

export type BuildLadderStrategyReturnType = Bundle<"ladder-strategy" | "account-agent-call">;

/**
 * From the wallet: open approves exactly the parts' total (USDG, or the token for sellFirst) to the
 * strategy, then `open(token, legs, sellFirst, repeat, oneWay)`; close, setRepeat and collect are one step
 * `close(id, mask)`, `setRepeat(id, mask)`, `collect(id, mask)`.
 * Via account: one step, `account.ladder(data)` with `data` the same LadderStrategy call (the account makes
 * its own exact approval), bundle kind account-agent-call.
 */
export function buildLadderStrategy(parameters: BuildLadderStrategyParameters): BuildLadderStrategyReturnType {
  const owner = checkAddress("owner", parameters.owner);
  const ladder = checkAddress("ladder", parameters.ladder);
  const action = checkChoice("action", parameters.action, ladderStrategyActions);
  const via = parameters.via ?? "wallet";
  if (via !== "wallet" && via !== "account") throw new BundleError("INVALID_REQUEST", "via must be wallet or account", undefined, "via");
  const account = via === "account" ? checkAddress("account", required("account", parameters.account, "with via account")) : undefined;
  const why = `for action ${action}`;
  const params: Record<string, unknown> = { owner, ladder, action, via, ...(account ? { account } : {}) };

  let call: Hex;
  let approval: { token: Address; amount: bigint } | undefined;
  if (action === "open") {
    const token = checkAddress("token", required("token", parameters.token, why));
    const sellFirst = checkBoolean("sellFirst", parameters.sellFirst ?? false);
    const repeat = checkBoolean("repeat", parameters.repeat ?? false);
    const oneWay = checkBoolean("oneWay", parameters.oneWay ?? false);
    const legs = checkLegs(required("legs", parameters.legs, why));
    // The market's refusals first (they name the part and its exact minimum), then the shape's.
    if (parameters.market) checkAgainstMarket(legs, sellFirst, parameters.market);
    legs.forEach((l, i) => {
      if (l.amount === 0n)
        throw new BundleError(
          "AMOUNT_TOO_SMALL",
          `part ${i + 1}: the amount must be more than 0`,
          { part: i + 1, minimum: "1", unit: sellFirst ? "token" : "USDG" },
          `legs[${i}].amount`,
        );
      if (l.sellPriceX18 <= l.buyPriceX18)
        throw new BundleError("INVALID_REQUEST", `part ${i + 1}: sellPriceX18 must be above buyPriceX18`, { part: i + 1 }, `legs[${i}].sellPriceX18`);
    });
    const total = legs.reduce((sum, l) => sum + l.amount, 0n);
    if (total > maxUint256) throw new BundleError("INVALID_REQUEST", "the parts' total exceeds 2^256-1", undefined, "legs");
    call = encodeFunctionData({ abi: ladderStrategyAbi, functionName: "open", args: [token, legs, sellFirst, repeat, oneWay] });
    Object.assign(params, {
      token,
      sellFirst,
      repeat,
      oneWay,
      total: total.toString(),
      unit: sellFirst ? "token" : "USDG",
      legs: legs.map((l) => ({ buyPriceX18: l.buyPriceX18.toString(), sellPriceX18: l.sellPriceX18.toString(), amount: l.amount.toString() })),
    });
    if (via === "wallet") approval = { token: sellFirst ? token : checkAddress("usdg", required("usdg", parameters.usdg, why)), amount: total };
  } else {
    const id = checkUint("id", required("id", parameters.id, why));
    const mask = checkMask("mask", required("mask", parameters.mask, why), action === "close" ? 0 : 1, 3);
    call = encodeFunctionData({ abi: ladderStrategyAbi, functionName: action, args: [id, mask] });
    Object.assign(params, { id: id.toString(), mask });
  }

  if (account) {
    const data = encodeFunctionData({ abi: agentAccountAbi, functionName: "ladder", args: [call] });
    return { kind: "account-agent-call", steps: [step(account, data)], params: { ...params, call } };
  }
  if (approval) {
    params.approvals = [approvalParam(approval.token, ladder, approval.amount)];
    return { kind: "ladder-strategy", steps: [approveStep(approval.token, ladder, approval.amount, "legs"), step(ladder, call)], params };
  }
  return { kind: "ladder-strategy", steps: [step(ladder, call)], params };
}

function checkLegs(legs: readonly LadderStrategyLeg[]): LadderStrategyLeg[] {
  if (!Array.isArray(legs) || legs.length < 1 || legs.length > LADDER_STRATEGY_MAX_LEGS)
    throw new BundleError("INVALID_REQUEST", `legs must hold 1-${LADDER_STRATEGY_MAX_LEGS} parts`, undefined, "legs");
  return legs.map((l, i) => {
    try {
      return {
        buyPriceX18: checkUint("buyPriceX18", l.buyPriceX18),
        sellPriceX18: checkUint("sellPriceX18", l.sellPriceX18),
        amount: checkUint("amount", l.amount),
      };
    } catch (e) {
      if (e instanceof BundleError) throw new BundleError(e.code, `part ${i + 1}: ${e.message}`, { ...e.details, part: i + 1 }, `legs[${i}].${e.field}`);
      throw e;
    }
  });
}

const toUsd = priceUsd;

/** LadderStrategy._checkOpen, one check at a time over all parts, in the contract's order. Parts count from 1. */
function checkAgainstMarket(legs: readonly LadderStrategyLeg[], sellFirst: boolean, market: LadderStrategyMarket) {
  const spot = market.priceX18;
  if (spot <= 0n) throw new BundleError("NO_REFERENCE", "the market has no reference price now");
  legs.forEach((l, i) => {
    const ok = sellFirst ? l.sellPriceX18 > spot : l.buyPriceX18 > 0n && l.buyPriceX18 < spot;
    if (!ok) throw wrongSide(i, sellFirst, spot, sellFirst ? l.sellPriceX18 : l.buyPriceX18);
  });
  legs.forEach((l, i) => {
    const minimum = minLegAmount(i, sellFirst, l.sellPriceX18, market);
    if (l.amount < minimum) {
      const unit = sellFirst ? "token" : "USDG";
      throw new BundleError(i === 0 ? "FIRST_TOO_SMALL" : "FOLLOW_UP_TOO_SMALL", `part ${i + 1}: the amount must be at least ${minimum} (${unit} base units)`, {
        part: i + 1,
        minimum: minimum.toString(),
        unit,
      });
    }
  });
  legs.forEach((l, i) => {
    const bound = l.buyPriceX18 * (10_000n + 2n * BigInt(market.feeBps));
    if (l.sellPriceX18 * 10_000n <= bound) {
      const minimumSell = bound / 10_000n + 1n;
      throw new BundleError(
        "NO_TRIP_HEADROOM",
        `part ${i + 1}: the sell line must be at least ${toUsd(minimumSell)} USDG per token (priceX18 ${minimumSell}) to clear twice the ${market.feeBps} bps fee`,
        { part: i + 1, priceUsd: toUsd(l.sellPriceX18), limitUsd: toUsd(minimumSell) },
      );
    }
  });
}

/**
 * WRONG_SIDE for part `leg` (from 0): the price now has crossed its line. The details name the part, the
 * price now (`priceUsd`) and the line it broke (`limitUsd`), in USDG per whole token; the message gives the
 * exact bound as a priceX18 too.
 */
function wrongSide(leg: number, sellFirst: boolean, spotX18: bigint, lineX18: bigint | undefined): BundleError {
  const bound = sellFirst ? spotX18 + 1n : spotX18 - 1n;
  const line = lineX18 === undefined ? {} : { limitUsd: toUsd(lineX18) };
  return new BundleError(
    "WRONG_SIDE",
    `part ${leg + 1}: its ${sellFirst ? "sell line must be above" : "buy line must be below"} the price now (${toUsd(spotX18)} USDG): ${sellFirst ? "at least" : "at most"} priceX18 ${bound}`,
    { part: leg + 1, priceUsd: toUsd(spotX18), ...line },
  );
}

/**
 * The details of a per-part refusal the contract itself answered (a custom error, decoded as
 * "CODE leg bound"), from the open's params (sellFirst, unit, legs): the same details as the builder's
 * refusals, for when the market moved between the check and the simulation. Undefined for anything else.
 */
export function ladderRevertDetails(reason: string, params: Record<string, unknown>): BundleErrorDetails | undefined {
  const [code, legText, boundText] = reason.split(" ");
  if (legText === undefined || boundText === undefined || !/^\d+$/.test(legText) || !/^\d+$/.test(boundText)) return undefined;
  const leg = Number(legText);
  const bound = BigInt(boundText);
  const sellFirst = params.sellFirst === true;
  const legs = Array.isArray(params.legs) ? (params.legs as { buyPriceX18?: string; sellPriceX18?: string }[]) : [];
  const line = legs[leg]?.[sellFirst ? "sellPriceX18" : "buyPriceX18"];
  switch (code) {
    case "WRONG_SIDE":
      return wrongSide(leg, sellFirst, bound, line === undefined ? undefined : BigInt(line)).details;
    case "FIRST_TOO_SMALL":
    case "FOLLOW_UP_TOO_SMALL":
      return { part: leg + 1, minimum: bound.toString(), unit: sellFirst ? "token" : "USDG" };
    case "NO_TRIP_HEADROOM": {
      const sell = legs[leg]?.sellPriceX18;
      return { part: leg + 1, ...(sell === undefined ? {} : { priceUsd: toUsd(BigInt(sell)) }), limitUsd: toUsd(bound) };
    }
    default:
      return undefined;
  }
}

/** LadderStrategy.minLegAmount: USDG for buy-first; for sell-first the token worth it at the sell line, rounded up. */
export function minLegAmount(
  leg: number,
  sellFirst: boolean,
  sellPriceX18: bigint,
  market: Pick<LadderStrategyMarket, "decimals" | "minFirstLegUsdg" | "minFollowUpUsdg">,
): bigint {
  const minUsdg = leg === 0 ? market.minFirstLegUsdg : market.minFollowUpUsdg;
  if (!sellFirst) return minUsdg;
  const scaled = minUsdg * 10n ** 12n * 10n ** BigInt(market.decimals);
  return (scaled + sellPriceX18 - 1n) / sellPriceX18;
}

/** An agent account's limits now (AgentAccount.limits() and committedUsdg()), with the strategy's fee. */
export type AgentAccountLimits = {
  floorX18: bigint;
  /** Required: 0 refuses every open. */
  ceilingX18: bigint;
  budgetUsdg: bigint;
  feeCapBps: number;
  minSpreadBps: number;
  /** USDG the account's opens have committed so far. */
  committedUsdg: bigint;
  /** LadderStrategy.feeBps(). */
  feeBps: number;
  /** The token's decimals (a sell-first part counts its token amount at its sell line). */
  decimals: number;
};

export type AccountLimitCode = "ACCOUNT_FLOOR" | "ACCOUNT_CEILING" | "ACCOUNT_BUDGET" | "ACCOUNT_FEE_CAP" | "ACCOUNT_SPREAD";
export type AccountLimitRefusal = { code: AccountLimitCode; message: string; details?: BundleError["details"] };

/** PriceMath.toUsdg: token base units worth USDG base units at priceX18, rounded down. */
const tokenToUsdg = (amount: bigint, decimals: number, priceX18: bigint) => (amount * priceX18) / (10n ** BigInt(decimals) * 10n ** 12n);
const fmtUsdg = (units: bigint) => Number(formatUnits(units, USDG_DECIMALS));

/**
 * AgentAccount._checkOpen: the first limit an open through the account breaks, checked one limit at a time
 * over all parts in the contract's order (FLOOR, CEILING, BUDGET, FEE_CAP, SPREAD), with the account's
 * own numbers; undefined when the account lets it through. Parts count from 1.
 */
export function accountLimitRefusal(legs: readonly LadderStrategyLeg[], sellFirst: boolean, limits: AgentAccountLimits): AccountLimitRefusal | undefined {
  for (const [i, l] of legs.entries())
    if (l.buyPriceX18 < limits.floorX18)
      return {
        code: "ACCOUNT_FLOOR",
        message: `part ${i + 1}: its buy line ${toUsd(l.buyPriceX18)} is below the account's floor ${toUsd(limits.floorX18)} USDG per token`,
        details: { part: i + 1, priceUsd: toUsd(l.buyPriceX18), limitUsd: toUsd(limits.floorX18) },
      };
  if (limits.ceilingX18 === 0n)
    return {
      code: "ACCOUNT_CEILING",
      message: "the account has no ceiling, which every open requires: the account's owner must set one (setLimits)",
      details: { limitUsd: 0 },
    };
  for (const [i, l] of legs.entries())
    if (l.sellPriceX18 > limits.ceilingX18)
      return {
        code: "ACCOUNT_CEILING",
        message: `part ${i + 1}: its sell line ${toUsd(l.sellPriceX18)} is above the account's ceiling ${toUsd(limits.ceilingX18)} USDG per token`,
        details: { part: i + 1, priceUsd: toUsd(l.sellPriceX18), limitUsd: toUsd(limits.ceilingX18) },
      };
  const commits = legs.reduce((sum, l) => sum + (sellFirst ? tokenToUsdg(l.amount, limits.decimals, l.sellPriceX18) : l.amount), 0n);
  const left = limits.budgetUsdg > limits.committedUsdg ? limits.budgetUsdg - limits.committedUsdg : 0n;
  if (commits > left)
    return {
      code: "ACCOUNT_BUDGET",
      message: `the open commits ${fmtUsdg(commits)} USDG, more than the ${fmtUsdg(left)} USDG left of the account's budget of ${fmtUsdg(limits.budgetUsdg)}`,
      details: { minimum: commits.toString(), unit: "USDG", limitUsd: fmtUsdg(left) },
    };
  if (limits.feeBps > limits.feeCapBps)
    return { code: "ACCOUNT_FEE_CAP", message: `the strategy's fee of ${limits.feeBps} bps is above the account's fee cap of ${limits.feeCapBps} bps` };
  for (const [i, l] of legs.entries()) {
    const bound = l.buyPriceX18 * (10_000n + BigInt(limits.minSpreadBps));
    if (l.sellPriceX18 * 10_000n < bound) {
      const minimumSell = (bound + 9_999n) / 10_000n;
      return {
        code: "ACCOUNT_SPREAD",
        message: `part ${i + 1}: the sell line must be at least ${toUsd(minimumSell)} USDG per token (priceX18 ${minimumSell}), ${limits.minSpreadBps} bps above its buy line, the account's minimum spread`,
        details: { part: i + 1, priceUsd: toUsd(l.sellPriceX18), limitUsd: toUsd(minimumSell) },
      };
    }
  }
  return undefined;
}
