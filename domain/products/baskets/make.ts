// basket-make: create a basket through the basket maker, with the owner's first deposit.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { basketMakerAbi } from "../../../abis/index.js";
import type { Leg } from "./legs.js";
import { BundleError, type Bundle } from "../../bundles/types.js";
import { checkBuyLegs, checkLegs, legsParam } from "./legs.js";
import { checkAddress, checkAmount, checkHex, checkUint } from "../../bundles/checks.js";
import { MAX_ZAP_CALL_BYTES, NATIVE_ETH, approvalParam, approveStep, byteLength, step } from "../../bundles/steps.js";
import { sameAddress } from "../../address.js";
import { ONE_X18 } from "../../price.js";

/** BasketMaker's constants: each weight at least 1%, weights sum to 1e18, fee 0.3% or 1%. */
export const BASKET_MIN_WEIGHT = 10n ** 16n;
export const BASKET_WEIGHTS_SUM = ONE_X18;
export const BASKET_FEES = [3n * 10n ** 15n, 10n ** 16n] as const;

/** BasketMaker.BasketParams. */
export type BasketDefinition = {
  name: string;
  symbol: string;
  /** 2-8 tokens, sorted ascending by address. */
  tokens: readonly Address[];
  /** 18-decimal fractions, one per token, summing to 1e18. */
  normalizedWeights: readonly bigint[];
  /** 3e15 (0.3%) or 1e16 (1%). */
  swapFeePercentage: bigint;
  salt: Hex;
};

export type BuildBasketMakeParameters = {
  /** The signing wallet: the recipient of the first basket tokens. */
  owner: Address;
  maker: Address;
  basket: BasketDefinition;
  /** The paid token (USDG or WETH). */
  tokenIn: Address;
  /** Base units of tokenIn: the first deposit. */
  amountIn: bigint;
  /** One leg per basket token, in `basket.tokens` order, each paid with tokenIn (recipient the maker). */
  legs: readonly Leg[];
  minBptOut: bigint;
  /** Unix seconds; the maker refuses after it. */
  deadline: bigint;
};

/**
 * Approve exactly `amountIn` of tokenIn to the maker, then `make(basket, tokenIn, amountIn, legs, minBptOut,
 * recipient: owner, deadline)`. Checks the basket's shape as the maker does (TOKEN_COUNT, DUPLICATE_TOKEN,
 * WEIGHT_TOO_SMALL, WEIGHTS_SUM, MAKE_FEE); names and symbols are the API's to check.
 */
export function buildBasketMake(parameters: BuildBasketMakeParameters): Bundle<"basket-make"> {
  const owner = checkAddress("owner", parameters.owner);
  const maker = checkAddress("maker", parameters.maker);
  const tokenIn = checkAddress("tokenIn", parameters.tokenIn);
  if (sameAddress(tokenIn, NATIVE_ETH)) throw new BundleError("NATIVE_ETH_IN", "native ETH cannot be paid in: use WETH", undefined, "tokenIn");
  const amountIn = checkAmount("amountIn", parameters.amountIn);
  const basket = checkBasket(parameters.basket);
  const legs = checkLegs(parameters.legs);
  if (legs.length !== basket.tokens.length) throw new BundleError("INVALID_REQUEST", "give one leg per basket token", undefined, "legs");
  legs.forEach((leg, i) => {
    if (!sameAddress(leg.tokenOut, basket.tokens[i]!))
      throw new BundleError("INVALID_REQUEST", `leg ${i + 1} must buy basket token ${i + 1}`, { part: i + 1 }, `legs[${i}].tokenOut`);
  });
  checkBuyLegs(legs, tokenIn, amountIn);
  const minBptOut = checkUint("minBptOut", parameters.minBptOut);
  const deadline = checkUint("deadline", parameters.deadline);
  const data = encodeFunctionData({
    abi: basketMakerAbi,
    functionName: "make",
    args: [basket, tokenIn, amountIn, legs, minBptOut, owner, deadline],
  });
  if (byteLength(data) > MAX_ZAP_CALL_BYTES)
    throw new BundleError("ROUTE_TOO_LARGE", `the maker call is ${byteLength(data)} bytes, over ${MAX_ZAP_CALL_BYTES}`, undefined, "legs");
  return {
    kind: "basket-make",
    steps: [approveStep(tokenIn, maker, amountIn, "amountIn"), step(maker, data)],
    params: {
      owner,
      maker,
      basket: {
        name: basket.name,
        symbol: basket.symbol,
        tokens: basket.tokens,
        normalizedWeights: basket.normalizedWeights.map(String),
        swapFeePercentage: basket.swapFeePercentage.toString(),
        salt: basket.salt,
      },
      token: tokenIn,
      amount: amountIn.toString(),
      legs: legsParam(legs),
      minOut: minBptOut.toString(),
      recipient: owner,
      deadline: Number(deadline),
      approvals: [approvalParam(tokenIn, maker, amountIn)],
    },
  };
}

function checkBasket(basket: BasketDefinition | undefined) {
  if (!basket || typeof basket !== "object") throw new BundleError("INVALID_REQUEST", "basket is required", undefined, "basket");
  for (const key of ["name", "symbol"] as const)
    if (typeof basket[key] !== "string") throw new BundleError("INVALID_REQUEST", `basket.${key} must be a string`, undefined, `basket.${key}`);
  const { tokens: rawTokens, normalizedWeights: rawWeights } = basket;
  if (!Array.isArray(rawTokens) || !Array.isArray(rawWeights) || rawTokens.length < 2 || rawTokens.length > 8 || rawWeights.length !== rawTokens.length)
    throw new BundleError("TOKEN_COUNT", "a basket holds 2-8 tokens, each with its weight", undefined, "basket.tokens");
  const tokens = rawTokens.map((t, i) => checkAddress(`basket.tokens[${i}]`, t));
  tokens.forEach((t, i) => {
    if (i === 0) return;
    const [a, b] = [BigInt(tokens[i - 1]!), BigInt(t)];
    if (a === b) throw new BundleError("DUPLICATE_TOKEN", "a token is listed twice", { token: t }, "basket.tokens");
    if (a > b) throw new BundleError("INVALID_REQUEST", "basket.tokens must be sorted by address", undefined, "basket.tokens");
  });
  const normalizedWeights = rawWeights.map((w, i) => checkUint(`basket.normalizedWeights[${i}]`, w));
  normalizedWeights.forEach((w, i) => {
    if (w < BASKET_MIN_WEIGHT)
      throw new BundleError("WEIGHT_TOO_SMALL", "each weight must be at least 1%", { token: tokens[i]! }, `basket.normalizedWeights[${i}]`);
  });
  if (normalizedWeights.reduce((a, b) => a + b, 0n) !== BASKET_WEIGHTS_SUM)
    throw new BundleError("WEIGHTS_SUM", "weights must sum to 100%", undefined, "basket.normalizedWeights");
  const swapFeePercentage = checkUint("basket.swapFeePercentage", basket.swapFeePercentage);
  if (!BASKET_FEES.includes(swapFeePercentage as (typeof BASKET_FEES)[number]))
    throw new BundleError("MAKE_FEE", "the swap fee must be 0.3 or 1 percent", undefined, "basket.swapFeePercentage");
  const salt = checkHex("basket.salt", basket.salt);
  if (salt.length !== 66) throw new BundleError("INVALID_REQUEST", "basket.salt must be 32 bytes", undefined, "basket.salt");
  return { name: basket.name, symbol: basket.symbol, tokens, normalizedWeights, swapFeePercentage, salt };
}
