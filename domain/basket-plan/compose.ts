// The basket a plan describes: its tokens (1-8, no duplicates) and weights, with the anchor rule.
// - The anchor is USDG by default, or WETH. A basket that holds neither gets the anchor added at 10%.
// - With no weights, the anchor (the chosen one if held, else the other one if held, else the added
//   one) gets 10% and the other tokens share the rest evenly.
// - Otherwise every token's weight must be given (422 WEIGHTS_PARTIAL) and sum to 100 (WEIGHTS_SUM);
//   an added anchor takes its 10% from them in proportion. Each weight is at least 1% (WEIGHT_TOO_SMALL).
// Pure: throws ApiError with the plan's 422 codes.
import { ApiError } from "../errors.js";
import { evenWeights, pctToX18, weightProblem, withAddedAnchor, WEIGHT_ONE } from "./weights.js";
import { sameAddress } from "../address.js";

export const MAX_BASKET_TOKENS = 8;

export type ComposeInput = {
  /** Token addresses in request order, each with its weight in percent when given. */
  tokens: readonly { address: string; weightPct?: number }[];
  /** The chosen anchor's address and the other anchor's (undefined when not deployed). */
  anchor: string;
  otherAnchor?: string;
};

export type Composition = {
  tokens: { address: string; weight: bigint; added: boolean }[];
  /** The token that plays the anchor (index into tokens). */
  anchorIndex: number;
  anchorAdded: boolean;
};

export function composeBasket({ tokens, anchor, otherAnchor }: ComposeInput): Composition {
  if (tokens.length < 1 || tokens.length > MAX_BASKET_TOKENS)
    throw new ApiError("TOKEN_COUNT", `A plan takes 1-${MAX_BASKET_TOKENS} tokens, not ${tokens.length}`);
  const seen = new Set<string>();
  for (const t of tokens) {
    if (seen.has(t.address.toLowerCase())) throw new ApiError("DUPLICATE_TOKEN", `${t.address} is listed twice`, { token: t.address });
    seen.add(t.address.toLowerCase());
  }
  const given = tokens.filter((t) => t.weightPct !== undefined).length;
  if (given !== 0 && given !== tokens.length) throw new ApiError("WEIGHTS_PARTIAL", "Give every token's weight, or none");

  let anchorIndex = tokens.findIndex((t) => sameAddress(t.address, anchor));
  if (anchorIndex < 0) anchorIndex = tokens.findIndex((t) => sameAddress(t.address, otherAnchor));
  const anchorAdded = anchorIndex < 0;
  const all = anchorAdded ? [...tokens.map((t) => ({ ...t })), { address: anchor, weightPct: undefined }] : tokens.map((t) => ({ ...t }));
  if (all.length > MAX_BASKET_TOKENS) {
    throw new ApiError(
      "TOKEN_COUNT",
      `With the anchor added the basket would hold ${all.length} tokens, over ${MAX_BASKET_TOKENS}: include USDG or WETH, or drop a token`,
    );
  }
  if (anchorAdded) anchorIndex = all.length - 1;

  let weights: bigint[];
  if (given === 0) {
    weights = evenWeights(all.length, all.length === 1 ? -1 : anchorIndex);
  } else {
    const pcts = tokens.map((t) => pctToX18(t.weightPct!));
    const sum = pcts.reduce((a, b) => a + b, 0n);
    if (sum !== WEIGHT_ONE) throw new ApiError("WEIGHTS_SUM", `Weights sum to ${Number(sum / 10n ** 12n) / 10_000}%, not 100%`);
    weights = anchorAdded ? withAddedAnchor(pcts) : pcts;
  }
  const problem = weightProblem(weights);
  if (problem) throw new ApiError(problem.code, problem.message, problem.index === undefined ? undefined : { token: all[problem.index]!.address });
  return { tokens: all.map((t, i) => ({ address: t.address, weight: weights[i]!, added: anchorAdded && i === all.length - 1 })), anchorIndex, anchorAdded };
}
