// basket-make: a new basket through the basket maker, with the owner's first deposit (USDG or WETH,
// worth at least 25 USD) split by weight and bought through the aggregator (one route per token, through
// the route budget). The name, symbol, tokens, weights and fee are permanent; the basket is unverified
// until the service lists it. Refusals: every 422 of the spec's basket-make row, and 503
// MAKER_NOT_DEPLOYED, TRADE_LIST_LOADING, ZAP_UNAVAILABLE, AGGREGATOR_CHANGED. An owner short of the deposit
// is no refusal: the answer's `issues.balance` says so.
import { randomBytes } from "node:crypto";
import { getAddress, isAddress, toHex, type Address } from "viem";
import { basketMakerAbi, basketRegistryAbi } from "../../../abis/index.js";
import { NATIVE_ETH } from "../../../adapters/chain/aggregator-tokens.js";
import { listedToken, listedTokens } from "../../../adapters/chain/token-list.js";
import { readTokenNames } from "../../../adapters/db/reads/tokens.js";
import { nameProblem, symbolProblem } from "../../../domain/basket-plan/names.js";
import { pctToX18, weightProblem, WEIGHT_ONE } from "../../../domain/basket-plan/weights.js";
import { buildBasketMake, BASKET_FEES } from "../../../domain/bundles/index.js";
import { ApiError, isErrorCode } from "../../../domain/errors.js";
import type { PrepareContext, Resolver } from "../types.js";
import { build } from "./build.js";
import { lessBps, slippageOf, toBaseUnits, units } from "./numbers.js";
import { contract } from "./contracts.js";
import { checkTokenUsable, tokenInfo, type BasketToken } from "./basket-inputs.js";
import { basketAggregator, checkAggregator, priceX18, quoteParam, valueUsd, zapDeadline } from "./basket-route.js";
import { checkLegsImpact, routeByWeight } from "./basket-legs.js";
import { sameAddress } from "../../../domain/address.js";
import { ONE_X18 } from "../../../domain/price.js";

/** The first deposit is worth at least 25 USD. */
export const MIN_FIRST_DEPOSIT_USD = 25;
/** What the first deposit mints (BasketPool.INITIAL_SUPPLY). */
const INITIAL_SUPPLY = 100n * ONE_X18;
const MAKE_REVERTS = new Set([
  "SYMBOL_TAKEN",
  "BAD_NAME",
  "BAD_SYMBOL",
  "RESERVED_SYMBOL",
  "NO_ANCHOR",
  "WEIGHTS_SUM",
  "WEIGHT_TOO_SMALL",
  "MAKE_FEE",
  "TOKEN_COUNT",
  "DUPLICATE_TOKEN",
]);

/** The trade list: the service's token list, charted tokens with a market (USDG needs none). */
async function tradeListToken(ctx: PrepareContext, input: string, index: number): Promise<BasketToken> {
  const text = input.trim();
  const field = `tokens[${index}].token`;
  if (text.toUpperCase() === "ETH" || sameAddress(text, NATIVE_ETH))
    throw new ApiError("NATIVE_ETH_TOKEN", `${field}: native ETH cannot be a basket token: use WETH`, { token: text });
  let address: Address;
  if (isAddress(text, { strict: false })) {
    if (!listedToken(text)) throw new ApiError("NOT_ON_TRADE_LIST", `${field}: ${getAddress(text)} is not on the trade list`, { token: getAddress(text) });
    address = getAddress(text);
  } else {
    const listed = listedTokens().find((t) => t.symbol.toLowerCase() === text.toLowerCase());
    if (!listed) throw new ApiError("UNKNOWN_TOKEN", `${field}: ${text} is not a listed symbol`, { token: text });
    address = getAddress(listed.address);
  }
  return tokenInfo(ctx, address);
}

type MakeBody = Parameters<Resolver<"basket-make">>[1];
/** The deposit tokens a basket may be anchored on and paid in. */
type Anchors = { usdg: Address; weth: Address | undefined };

/** The basket's shape: 2-8 distinct listed tokens, USDG or WETH among them, weights that add up, a fee of 0.3 or 1 %. */
async function basketShape(ctx: PrepareContext, body: MakeBody, { usdg, weth }: Anchors) {
  if (body.tokens.length < 2 || body.tokens.length > 8) throw new ApiError("TOKEN_COUNT", `A basket holds 2-8 tokens, not ${body.tokens.length}`);
  const tokens = await Promise.all(body.tokens.map((t, i) => tradeListToken(ctx, t.token, i)));
  const seen = new Set<string>();
  for (const t of tokens) {
    if (seen.has(t.address.toLowerCase())) throw new ApiError("DUPLICATE_TOKEN", `${t.symbol} is listed twice`, { token: t.address });
    seen.add(t.address.toLowerCase());
  }
  if (!tokens.some((t) => sameAddress(t.address, usdg) || (weth && sameAddress(t.address, weth))))
    throw new ApiError("NO_ANCHOR", "A basket must hold USDG or WETH");
  const weights = body.tokens.map((t) => pctToX18(t.weightPct));
  const weightIssue = weightProblem(weights);
  if (weightIssue)
    throw new ApiError(weightIssue.code, weightIssue.message, weightIssue.index === undefined ? undefined : { token: tokens[weightIssue.index]!.address });
  const swapFeePct = body.swapFeePct ?? 1;
  const swapFeePercentage = swapFeePct === 0.3 ? BASKET_FEES[0] : swapFeePct === 1 ? BASKET_FEES[1] : undefined;
  if (swapFeePercentage === undefined) throw new ApiError("MAKE_FEE", `swapFeePct must be 0.3 or 1, not ${swapFeePct}`);
  return { tokens, weights, swapFeePercentage };
}

/** The name and symbol: no copy of a token's, and a symbol no other basket has. */
async function checkNames(ctx: PrepareContext, body: MakeBody, charted: { symbol: string; name: string }[], registry: Address): Promise<void> {
  const rules = { tokenNames: charted.map((t) => t.name), tokenSymbols: [...charted.map((t) => t.symbol), "USDG", "ETH"] };
  const badName = nameProblem(body.name, rules);
  if (badName) throw new ApiError(badName.code, badName.message);
  const earlySymbol = symbolProblem(body.symbol, rules, false);
  if (earlySymbol) throw new ApiError(earlySymbol.code, earlySymbol.message);
  const taken = await ctx.client.readContract({ address: registry, abi: basketRegistryAbi, functionName: "symbolTaken", args: [body.symbol] });
  if (taken) throw new ApiError("SYMBOL_TAKEN", `Another basket has the symbol ${body.symbol} (case is ignored)`);
}

/** The first deposit: USDG or WETH, worth at least MIN_FIRST_DEPOSIT_USD. */
async function firstDeposit(ctx: PrepareContext, body: MakeBody, { usdg, weth }: Anchors) {
  const payText = body.payWith?.trim() ?? "USDG";
  if (payText.toUpperCase() === "ETH" || sameAddress(payText, NATIVE_ETH)) throw new ApiError("NATIVE_ETH_IN", "Native ETH cannot be paid in: use WETH");
  const payAddress =
    payText.toUpperCase() === "USDG" || sameAddress(payText, usdg)
      ? usdg
      : weth && (payText.toUpperCase() === "WETH" || sameAddress(payText, weth))
        ? weth
        : undefined;
  if (!payAddress) throw new ApiError("BAD_DEPOSIT_TOKEN", `The first deposit is paid in USDG or WETH, not ${payText}`, { token: payText });
  const pay = await tokenInfo(ctx, payAddress);
  const amountIn = toBaseUnits("amount", body.amount, pay.decimals);
  const payPrice = await priceX18(ctx, pay.address);
  const depositUsd = valueUsd(amountIn, pay.decimals, payPrice);
  if (payPrice === 0n || depositUsd < MIN_FIRST_DEPOSIT_USD) {
    const minimum = payPrice === 0n ? 0n : (BigInt(MIN_FIRST_DEPOSIT_USD) * 10n ** BigInt(18 + pay.decimals) + payPrice - 1n) / payPrice;
    throw new ApiError(
      "DEPOSIT_TOO_SMALL",
      `The first deposit must be worth at least ${MIN_FIRST_DEPOSIT_USD} USD (${units(minimum, pay.decimals)} ${pay.symbol}); this one is worth ${depositUsd.toFixed(2)} USD`,
      {
        minimum: minimum.toString(),
        unit: sameAddress(pay.address, usdg) ? "USDG" : "token",
      },
    );
  }
  return { pay, amountIn, depositUsd };
}

/** The maker's own word on the pipeline's (funded) simulation: its refusal codes, else MAKE_REFUSED. */
function refuseMakeRevert(reason: string, step: number): ApiError {
  const code = reason.split(" ")[0]!;
  if (MAKE_REVERTS.has(code) && isErrorCode(code)) return new ApiError(code, `The basket maker refuses: ${reason}`);
  return new ApiError("MAKE_REFUSED", `The basket maker would refuse this basket: ${reason} (step ${step + 1})`);
}

export const resolveBasketMake: Resolver<"basket-make"> = async (ctx, body, owner) => {
  const maker = contract(ctx, "basketMaker", "MAKER_NOT_DEPLOYED");
  const registry = contract(ctx, "basketRegistry", "MAKER_NOT_DEPLOYED");
  const aggregator = basketAggregator(ctx);
  const charted = await readTokenNames(ctx.reads);
  if (charted.length === 0) throw new ApiError("TRADE_LIST_LOADING", "The trade list is loading: retry shortly");
  const usdg = getAddress(contract(ctx, "usdg"));
  const anchors: Anchors = { usdg, weth: ctx.deployments.contracts.weth ? getAddress(ctx.deployments.contracts.weth) : undefined };
  const { tokens, weights, swapFeePercentage } = await basketShape(ctx, body, anchors);
  await checkNames(ctx, body, charted, registry);
  const { pay, amountIn, depositUsd } = await firstDeposit(ctx, body, anchors);
  await Promise.all([checkTokenUsable(ctx, pay, [owner, maker]), ...tokens.map((t) => checkTokenUsable(ctx, t, [maker]))]);
  await checkAggregator(ctx, maker, aggregator);

  // Tokens sorted by address, as the maker requires, with their weights.
  const order = tokens.map((t, i) => ({ t, w: weights[i]! })).sort((a, b) => (BigInt(a.t.address) < BigInt(b.t.address) ? -1 : 1));
  const basket = {
    name: body.name,
    symbol: body.symbol,
    tokens: order.map((o) => o.t.address),
    normalizedWeights: order.map((o) => o.w),
    swapFeePercentage,
    salt: toHex(randomBytes(32)),
  };
  // Each leg spends its weight's share (the maker checks the split).
  const slippageBps = slippageOf(body);
  const split = { tokens: basket.tokens, weights: basket.normalizedWeights, total: WEIGHT_ONE };
  const routed = await routeByWeight(aggregator, { tokenIn: pay.address, amountIn }, split, maker, slippageBps, usdg);
  const impactBps = checkLegsImpact(routed, depositUsd, INITIAL_SUPPLY);
  const [{ deadline, chainTime }, pool, block] = await Promise.all([
    zapDeadline(ctx),
    ctx.client.readContract({ address: maker, abi: basketMakerAbi, functionName: "predictAddress", args: [basket, owner] }),
    ctx.client.getBlockNumber(),
  ]);
  const bundle = build("basket-make", () =>
    buildBasketMake({ owner, maker, basket, tokenIn: pay.address, amountIn, legs: routed.map((l) => l.leg), minBptOut: INITIAL_SUPPLY, deadline }),
  );

  return {
    bundle,
    refuseRevert: refuseMakeRevert,
    priceToken: basket.tokens.find((t) => !sameAddress(t, usdg)),
    allow: { tokens: [pay.address, ...basket.tokens] },
    chainTime,
    params: {
      decimals: 18,
      pool: getAddress(pool),
      expectedOut: INITIAL_SUPPLY.toString(),
      slippageBps,
      payWith: pay.symbol,
      quote: quoteParam(block, depositUsd, impactBps),
      permanent: "The name, symbol, tokens, weights and fee are permanent; the basket is unverified until the service lists it.",
    },
    figures: { amount: amountIn, minimumOut: lessBps(INITIAL_SUPPLY, slippageBps) },
  };
};
