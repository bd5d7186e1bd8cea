// Random valid prepare requests over every bundle kind, as plain data (so fast-check prints a failing one),
// and the dispatcher that builds each.
import fc from "fast-check";
import { getAddress, padHex, toHex, type Address, type Hex } from "viem";
import {
  buildBasketBuy,
  buildBasketMake,
  buildBasketSell,
  buildGrid,
  buildLadder,
  buildLadderStrategy,
  buildLimitOrder,
  buildOrderAction,
  buildSwap,
  buildVaultCancelDeposit,
  buildVaultCancelWithdraw,
  buildVaultDeposit,
  buildVaultWithdraw,
  type Bundle,
  type BundleKind,
  type BuildBasketBuyParameters,
  type BuildBasketMakeParameters,
  type BuildBasketSellParameters,
  type BuildGridParameters,
  type BuildLadderParameters,
  type BuildLadderStrategyParameters,
  type BuildLimitOrderParameters,
  type BuildOrderActionParameters,
  type BuildSwapParameters,
  type BuildVaultCancelDepositParameters,
  type BuildVaultCancelWithdrawParameters,
  type BuildVaultDepositParameters,
  type BuildVaultWithdrawParameters,
} from "../../../domain/bundles/index.js";

const TWO_128 = 2n ** 128n;

/** Any non-zero address, checksummed. */
export const randomAddress = fc.bigInt({ min: 1n, max: 2n ** 160n - 2n }).map((n) => getAddress(padHex(toHex(n), { size: 20 })));
/** A few fixed addresses: requests often reuse one in two roles (owner = token, vault = queue...), which the
 * bundles must survive, and checksums stay cached, which keeps the properties fast. */
const addressPool = fc.sample(randomAddress, { numRuns: 24, seed: 42 });
/** A non-zero address: mostly from the pool, sometimes any. */
export const address = fc.oneof({ arbitrary: fc.constantFrom(...addressPool), weight: 3 }, { arbitrary: randomAddress, weight: 1 });
/** An amount a step moves: 1 to 2^128. */
export const amount = fc.bigInt({ min: 1n, max: TWO_128 });
/** A minimum or id: 0 to 2^128. */
export const uint = fc.bigInt({ min: 0n, max: TWO_128 });
export const calldata: fc.Arbitrary<Hex> = fc.uint8Array({ minLength: 0, maxLength: 200 }).map((b) => toHex(b));
const price = fc.bigInt({ min: 1n, max: 2n ** 127n });

export type Request =
  | { kind: "vault-deposit"; p: BuildVaultDepositParameters }
  | { kind: "vault-cancel-deposit"; p: BuildVaultCancelDepositParameters }
  | { kind: "vault-withdraw"; p: BuildVaultWithdrawParameters }
  | { kind: "vault-cancel-withdraw"; p: BuildVaultCancelWithdrawParameters }
  | { kind: "limit-order"; p: BuildLimitOrderParameters }
  | { kind: "ladder"; p: BuildLadderParameters }
  | { kind: "order-action"; p: BuildOrderActionParameters }
  | { kind: "grid"; p: BuildGridParameters }
  | { kind: "ladder-strategy"; p: BuildLadderStrategyParameters }
  | { kind: "swap"; p: BuildSwapParameters }
  | { kind: "basket-buy"; p: BuildBasketBuyParameters }
  | { kind: "basket-sell"; p: BuildBasketSellParameters }
  | { kind: "basket-make"; p: BuildBasketMakeParameters };

export function build(request: Request): Bundle<BundleKind> {
  switch (request.kind) {
    case "vault-deposit":
      return buildVaultDeposit(request.p);
    case "vault-cancel-deposit":
      return buildVaultCancelDeposit(request.p);
    case "vault-withdraw":
      return buildVaultWithdraw(request.p);
    case "vault-cancel-withdraw":
      return buildVaultCancelWithdraw(request.p);
    case "limit-order":
      return buildLimitOrder(request.p);
    case "ladder":
      return buildLadder(request.p);
    case "order-action":
      return buildOrderAction(request.p);
    case "grid":
      return buildGrid(request.p);
    case "ladder-strategy":
      return buildLadderStrategy(request.p);
    case "swap":
      return buildSwap(request.p);
    case "basket-buy":
      return buildBasketBuy(request.p);
    case "basket-sell":
      return buildBasketSell(request.p);
    case "basket-make":
      return buildBasketMake(request.p);
  }
}

const vaultDeposit = fc
  .record({
    family: fc.constantFrom("merged", "up", "stock-token" as const),
    owner: address,
    vault: address,
    usdg: address,
    depositQueue: address,
    router: address,
    aggregator: address,
    swapData: calldata,
    assets: amount,
    minShares: uint,
  })
  .map((p): Request => ({ kind: "vault-deposit", p }));

const vaultCancelDeposit = fc
  .record({ family: fc.constantFrom("merged", "up" as const), owner: address, vault: address, id: uint, depositQueue: address })
  .map((p): Request => ({ kind: "vault-cancel-deposit", p }));

const withdrawModes = [
  ["merged", "usdg"],
  ["merged", "in-kind"],
  ["merged", "queue"],
  ["up", "queue"],
  ["up", "in-kind"],
  ["stock-token", "usdg"],
  ["stock-token", "in-kind"],
] as const;
const vaultWithdraw = fc
  .record({
    familyMode: fc.constantFrom(...withdrawModes),
    owner: address,
    vault: address,
    shares: amount,
    minUsdgOut: uint,
    minTokenOut: uint,
    minAssetsOut: uint,
    route: calldata,
    aggregator: address,
    router: address,
    redeemQueue: address,
    withdrawalQueue: address,
  })
  .map(({ familyMode, ...rest }): Request => ({ kind: "vault-withdraw", p: { family: familyMode[0], mode: familyMode[1], ...rest } }));

const vaultCancelWithdraw = fc
  .record({ family: fc.constantFrom("merged", "up" as const), owner: address, vault: address, id: uint, redeemQueue: address, withdrawalQueue: address })
  .map((p): Request => ({ kind: "vault-cancel-withdraw", p }));

const limitOrder = fc
  .record({
    owner: address,
    hook: address,
    usdg: address,
    token: address,
    sellToken: fc.boolean(),
    amountIn: amount,
    priceX18: price,
    market: fc.boolean(),
    minAmountOut: uint,
  })
  .map((p): Request => ({ kind: "limit-order", p }));

const ladder = fc
  .record({
    owner: address,
    hook: address,
    usdg: address,
    token: address,
    sellToken: fc.boolean(),
    orders: fc.array(fc.record({ amountIn: amount, priceX18: price }), { minLength: 2, maxLength: 20 }),
  })
  .map((p): Request => ({ kind: "ladder", p }));

const orderAction = fc
  .record({ owner: address, hook: address, action: fc.constantFrom("cancel", "claim0", "claim1", "claimBoth", "realize" as const), id: uint })
  .map((p): Request => ({ kind: "order-action", p }));

const grid = fc
  .record({
    owner: address,
    strategy: address,
    action: fc.constantFrom("open", "openWithMarket", "close", "setRepeat", "collect" as const),
    usdg: address,
    token: address,
    buyPriceX18: price,
    gap: price,
    amountUsdg: amount,
    repeat: fc.boolean(),
    minTokenOut: uint,
    id: uint,
  })
  .map(({ gap, ...p }): Request => ({ kind: "grid", p: { ...p, sellPriceX18: p.buyPriceX18 + gap } }));

const ladderLeg = fc
  .record({ buyPriceX18: fc.bigInt({ min: 0n, max: 2n ** 127n }), gap: price, amount })
  .map(({ gap, ...l }) => ({ ...l, sellPriceX18: l.buyPriceX18 + gap }));
const ladderStrategy = fc
  .record({
    owner: address,
    ladder: address,
    action: fc.constantFrom("open", "close", "setRepeat", "collect" as const),
    via: fc.constantFrom("wallet", "account" as const),
    account: address,
    usdg: address,
    token: address,
    legs: fc.array(ladderLeg, { minLength: 1, maxLength: 16 }),
    sellFirst: fc.boolean(),
    repeat: fc.boolean(),
    oneWay: fc.boolean(),
    id: uint,
    mask: fc.integer({ min: 1, max: 3 }),
    closeMask: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ closeMask, ...p }): Request => ({ kind: "ladder-strategy", p: { ...p, mask: p.action === "close" ? closeMask : p.mask } }));

const swap = fc
  .record({
    owner: address,
    router: address,
    tokenIn: address,
    tokenOut: address,
    amountIn: amount,
    minAmountOut: uint,
    route: fc.record({ to: address, data: calldata }),
  })
  .filter((p) => p.tokenIn !== p.tokenOut)
  .map((p): Request => ({ kind: "swap", p }));

const deadline = fc.bigInt({ min: 1_700_000_000n, max: 2_000_000_000n });

/** Legs paid with `tokenIn` spending at most `amountIn` in all. */
function buyLegs(tokenIn: Address, amountIn: bigint, tokens: readonly Address[], datas: readonly Hex[], cuts: readonly number[]) {
  const total = cuts.reduce((a, b) => a + b, 0) || 1;
  return tokens.map((tokenOut, i) => ({ tokenIn, tokenOut, amountIn: (amountIn * BigInt(cuts[i]!)) / BigInt(total), data: datas[i]! }));
}

const basketBuy = fc
  .record({
    owner: address,
    zap: address,
    pool: address,
    tokenIn: address,
    amountIn: amount,
    minBptOut: uint,
    deadline,
    tokens: fc.array(address, { minLength: 1, maxLength: 8 }),
    datas: fc.array(calldata, { minLength: 8, maxLength: 8 }),
    cuts: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 8, maxLength: 8 }),
  })
  .map(({ tokens, datas, cuts, ...p }): Request => ({ kind: "basket-buy", p: { ...p, legs: buyLegs(p.tokenIn, p.amountIn, tokens, datas, cuts) } }));

const basketSell = fc
  .record({
    owner: address,
    zap: address,
    pool: address,
    bptIn: amount,
    tokenOut: address,
    minOut: uint,
    deadline,
    legs: fc.array(fc.record({ tokenIn: address, amountIn: uint, data: calldata }), { minLength: 1, maxLength: 8 }),
  })
  .map(({ legs, ...p }): Request => ({ kind: "basket-sell", p: { ...p, legs: legs.map((l) => ({ ...l, tokenOut: p.tokenOut })) } }));

/** 2-8 distinct sorted tokens with weights of at least 1% summing to 1e18. */
const basketDefinition = fc
  .record({
    tokens: fc.uniqueArray(address, { minLength: 2, maxLength: 8, selector: (a) => a.toLowerCase() }),
    shares: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 8, maxLength: 8 }),
    name: fc.string({ minLength: 1, maxLength: 64 }),
    symbol: fc.stringMatching(/^[A-Za-z0-9.+-]{1,20}$/),
    swapFeePercentage: fc.constantFrom(3n * 10n ** 15n, 10n ** 16n),
    salt: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => toHex(b)),
  })
  .map(({ tokens, shares, ...b }) => {
    const sorted = [...tokens].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1));
    const n = sorted.length;
    const free = 10n ** 18n - BigInt(n) * 10n ** 16n; // 1% each, the rest by shares
    const total = BigInt(shares.slice(0, n).reduce((a, c) => a + c, 0) || 1);
    const weights = sorted.map((_, i) => 10n ** 16n + (free * BigInt(shares[i]!)) / total);
    weights[n - 1]! += 10n ** 18n - weights.reduce((a, w) => a + w, 0n);
    return { ...b, tokens: sorted, normalizedWeights: weights };
  });

const basketMake = fc
  .record({
    owner: address,
    maker: address,
    basket: basketDefinition,
    tokenIn: address,
    amountIn: amount,
    minBptOut: uint,
    deadline,
    datas: fc.array(calldata, { minLength: 8, maxLength: 8 }),
  })
  .map(
    ({ datas, ...p }): Request => ({
      kind: "basket-make",
      p: {
        ...p,
        legs: p.basket.tokens.map((tokenOut, i) => ({
          tokenIn: p.tokenIn,
          tokenOut,
          amountIn: (p.amountIn * p.basket.normalizedWeights[i]!) / 10n ** 18n,
          data: datas[i]!,
        })),
      },
    }),
  );

/** A valid request of any kind, each kind about as often. */
export const anyRequest: fc.Arbitrary<Request> = fc.oneof(
  vaultDeposit,
  vaultCancelDeposit,
  vaultWithdraw,
  vaultCancelWithdraw,
  limitOrder,
  ladder,
  orderAction,
  grid,
  ladderStrategy,
  swap,
  basketBuy,
  basketSell,
  basketMake,
);

/** The owner a request's roles must equal. */
export const ownerOf = (r: Request): Address => r.p.owner;

/** The USDG a request's parameters name, if any. */
export const usdgOf = (p: object): Address | undefined => ("usdg" in p ? (p.usdg as Address) : undefined);

/** Runs `check` on `numRuns` random requests, each with its owner and built bundle (fc.assert); answers the kinds built. */
export function checkBuiltRequests(numRuns: number, check: (request: Request, owner: Address, bundle: Bundle<BundleKind>) => void): Set<BundleKind> {
  const kinds = new Set<BundleKind>();
  fc.assert(
    fc.property(anyRequest, (request) => {
      const owner = ownerOf(request);
      const bundle = build(request);
      kinds.add(bundle.kind);
      check(request, owner, bundle);
    }),
    { numRuns },
  );
  return kinds;
}

/** The time a bundle is prepared at (unix seconds), as the deadline check's window sees it. */
export const chainNow = fc.bigInt({ min: 1_700_000_000n, max: 2_000_000_000n });
/** The zap's and maker's deadline window: 10 minutes. */
export const DEADLINE_SECONDS = 600;

/** A valid basket-buy, basket-sell or basket-make request with its deadline inside (now, now + 600], and that `now`. */
export const basketRequestInWindow: fc.Arbitrary<{ request: Request; now: bigint }> = fc
  .record({ request: fc.oneof(basketBuy, basketSell, basketMake), now: chainNow, ahead: fc.integer({ min: 1, max: DEADLINE_SECONDS }) })
  .map(({ request, now, ahead }) => ({ request: { ...request, p: { ...request.p, deadline: now + BigInt(ahead) } } as Request, now }));
