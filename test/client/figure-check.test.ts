// Issue 32: the typed client checks every figure it signs. Property tests over real builder outputs (a
// merged-vault deposit, a swap, a basket buy): a bundle built from what the caller asked (its amount, the
// quote it was shown at its slippage, a deadline within the window) passes; the same bundle with one
// deadline, minimum, amount or address field changed is refused before any signature.
import fc from "fast-check";
import { getAddress, type Address, encodeFunctionData } from "viem";
import { describe, expect, it } from "vitest";
import { minimumOutOf, paymentPolicy, preparedResultViolations, type PrepareResult, type SigningExpectations } from "../../client/index.js";
import { devAggregatorAbi } from "../../abis/index.js";
import { buildBasketBuy, buildSwap, buildVaultDeposit, buildVaultWithdraw, walletSendCalls, type Bundle } from "../../domain/bundles/index.js";

const a = (n: number) => getAddress(`0x${n.toString(16).padStart(40, "0")}`);
const owner = a(0x1001);
const usdg = a(0x2001);
const weth = a(0x2002);
const vault = a(0x3001);
const router = a(0x3002);
const aggregator = a(0x3003);
const zap = a(0x3004);
const pool = a(0x3005);
const attacker = a(0xbad);
const allow = {
  contracts: new Set([vault, router, aggregator, zap, pool].map((x) => x.toLowerCase())),
  tokens: new Set([usdg, weth, pool].map((x) => x.toLowerCase())),
};
const NOW = new Date("2026-11-27T00:00:00Z");
const nowSeconds = BigInt(NOW.getTime() / 1000);

/** A PrepareResult as the API answers it. */
function prepared(bundle: Bundle): PrepareResult {
  return {
    id: "sr_test",
    kind: bundle.kind,
    owner,
    steps: bundle.steps.map((s) => ({ to: s.to, data: s.data, value: "0" as const })),
    params: {},
    signUrl: "http://127.0.0.1/sign/sr_test",
    expiresAt: new Date(NOW.getTime() + 600_000).toISOString(),
    walletSendCalls: walletSendCalls(bundle, owner),
    simulation: { method: "eth_simulateV1" },
  } as PrepareResult;
}

/** What the caller asked and was shown, and the builder fields that follow from it. */
type Asked = { amount: bigint; quoteOut: bigint; slippageBps: number };
type Fields = { owner: Address; amount: bigint; minimum: bigint; deadline: bigint; target: Address; token: Address; spender?: Address };

const kinds: Record<string, { build: (f: Fields) => Bundle; fields: (keyof Fields)[] }> = {
  "vault-deposit": {
    build: (f) => buildVaultDeposit({ family: "merged", owner: f.owner, vault: f.target, usdg: f.token, assets: f.amount, minShares: f.minimum }),
    fields: ["owner", "amount", "minimum", "target", "token"],
  },
  swap: {
    build: (f) =>
      buildSwap({
        owner: f.owner,
        router: f.target,
        tokenIn: f.token,
        tokenOut: weth,
        amountIn: f.amount,
        minAmountOut: f.minimum,
        route: { to: f.spender ?? aggregator, data: "0x1234" },
      }),
    fields: ["owner", "amount", "minimum", "target", "token", "spender"],
  },
  "basket-buy": {
    build: (f) =>
      buildBasketBuy({
        owner: f.owner,
        zap: f.target,
        pool: f.spender ?? pool,
        tokenIn: f.token,
        amountIn: f.amount,
        legs: [{ tokenIn: f.token, tokenOut: weth, amountIn: f.amount, data: "0x" }],
        minBptOut: f.minimum,
        deadline: f.deadline,
      }),
    fields: ["owner", "amount", "minimum", "deadline", "target", "token", "spender"],
  },
};
const targets: Record<string, Address> = { "vault-deposit": vault, swap: router, "basket-buy": zap };

const asked = fc.record({
  amount: fc.bigInt({ min: 1n, max: 10n ** 24n }),
  quoteOut: fc.bigInt({ min: 20_000n, max: 10n ** 30n }),
  slippageBps: fc.integer({ min: 0, max: 500 }),
});

const honest = (kind: string, x: Asked): Fields => ({
  owner,
  amount: x.amount,
  minimum: minimumOutOf(x.quoteOut, x.slippageBps),
  deadline: nowSeconds + 300n,
  target: targets[kind]!,
  token: usdg,
});

/** Each field changed one way or another, as a tampering service or proxy would. */
const tampers: Record<keyof Fields, ((f: Fields) => Fields)[]> = {
  owner: [(f) => ({ ...f, owner: attacker })],
  amount: [(f) => ({ ...f, amount: f.amount + 1n }), (f) => ({ ...f, amount: f.amount > 1n ? f.amount - 1n : 2n })],
  minimum: [(f) => ({ ...f, minimum: f.minimum - 1n }), (f) => ({ ...f, minimum: 0n }), (f) => ({ ...f, minimum: f.minimum / 2n })],
  deadline: [(f) => ({ ...f, deadline: nowSeconds - 120n }), (f) => ({ ...f, deadline: nowSeconds + 3600n }), (f) => ({ ...f, deadline: 2n ** 64n })],
  target: [(f) => ({ ...f, target: attacker })],
  token: [(f) => ({ ...f, token: attacker })],
  spender: [(f) => ({ ...f, spender: attacker })],
};

const expectOf = (x: Asked): SigningExpectations => ({ now: NOW, amount: x.amount, quote: { amountOut: x.quoteOut, slippageBps: x.slippageBps } });

describe("the typed client checks every figure it signs (issue 32)", () => {
  for (const [kind, { build, fields }] of Object.entries(kinds)) {
    it(`${kind}: the bundle of what was asked passes`, () => {
      fc.assert(
        fc.property(asked, (x) => {
          expect(preparedResultViolations(prepared(build(honest(kind, x))), allow, expectOf(x))).toEqual([]);
        }),
        { numRuns: 100 },
      );
    });

    for (const field of fields)
      it(`${kind}: ${field} changed is refused`, () => {
        fc.assert(
          fc.property(asked, fc.nat({ max: tampers[field].length - 1 }), (x, which) => {
            const tampered = tampers[field][which]!(honest(kind, x));
            if (tampered.minimum === minimumOutOf(x.quoteOut, x.slippageBps) && field === "minimum") return; // no change
            expect(preparedResultViolations(prepared(build(tampered)), allow, expectOf(x)).length).toBeGreaterThan(0);
          }),
          { numRuns: 60 },
        );
      });
  }

  it("a deadline slightly off the client's clock passes within the skew (30 s each way)", () => {
    const x = { amount: 10n, quoteOut: 1_000_000n, slippageBps: 50 };
    const build = kinds["basket-buy"]!.build;
    expect(preparedResultViolations(prepared(build({ ...honest("basket-buy", x), deadline: nowSeconds + 620n })), allow, expectOf(x))).toEqual([]);
    expect(preparedResultViolations(prepared(build({ ...honest("basket-buy", x), deadline: nowSeconds - 10n })), allow, expectOf(x))).toEqual([]);
  });
});

describe("several minimums and leg minimums (issue 32)", () => {
  const inKind = (shares: bigint, minTokenOut: bigint, minUsdgOut: bigint) =>
    buildVaultWithdraw({ family: "merged", mode: "in-kind", owner, vault, shares, minTokenOut, minUsdgOut });
  const outs = fc.record({
    shares: fc.bigInt({ min: 1n, max: 10n ** 24n }),
    tokenOut: fc.bigInt({ min: 20_000n, max: 10n ** 30n }),
    usdgOut: fc.bigInt({ min: 20_000n, max: 10n ** 30n }),
    slippageBps: fc.integer({ min: 0, max: 500 }),
  });
  const expectOfOuts = (x: { shares: bigint; tokenOut: bigint; usdgOut: bigint; slippageBps: number }): SigningExpectations => ({
    now: NOW,
    amount: x.shares,
    quote: { amountOut: [x.tokenOut, x.usdgOut], slippageBps: x.slippageBps },
  });

  it("an in-kind redeem whose token and USDG minimums are each at the quote's floor passes", () => {
    fc.assert(
      fc.property(outs, (x) => {
        const bundle = inKind(x.shares, minimumOutOf(x.tokenOut, x.slippageBps), minimumOutOf(x.usdgOut, x.slippageBps));
        expect(preparedResultViolations(prepared(bundle), allow, expectOfOuts(x))).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it("either minimum lowered (by one, to half, to zero) is refused, whichever the other is", () => {
    fc.assert(
      fc.property(outs, fc.boolean(), fc.constantFrom(1n, 2n, 0n), (x, first, how) => {
        const floors = [minimumOutOf(x.tokenOut, x.slippageBps), minimumOutOf(x.usdgOut, x.slippageBps)] as const;
        const lower = (m: bigint) => (how === 1n ? m - 1n : how === 2n ? m / 2n : 0n);
        const bundle = inKind(x.shares, first ? lower(floors[0]) : floors[0], first ? floors[1] : lower(floors[1]));
        expect(preparedResultViolations(prepared(bundle), allow, expectOfOuts(x)).length).toBeGreaterThan(0);
      }),
      { numRuns: 100 },
    );
  });

  it("a quote of one output for a bundle of two minimums is refused (not the bundle quoted)", () => {
    const x = { shares: 10n, tokenOut: 1_000_000n, usdgOut: 2_000_000n, slippageBps: 50 };
    const bundle = inKind(x.shares, minimumOutOf(x.tokenOut, 50), minimumOutOf(x.usdgOut, 50));
    const violations = preparedResultViolations(prepared(bundle), allow, { now: NOW, amount: 10n, quote: { amountOut: x.tokenOut, slippageBps: 50 } });
    expect(violations.some((v) => v.includes("carries 2 minimum output(s), the quote shown 1"))).toBe(true);
  });

  it("a zero minimum passes only where the quote shown expects nothing of that output (a vault holding no token)", () => {
    fc.assert(
      fc.property(outs, (x) => {
        const nothing = { ...x, tokenOut: 0n };
        const floorUsdg = minimumOutOf(x.usdgOut, x.slippageBps);
        // The quote expects no token: a token minimum of 0 is the quote's floor.
        expect(preparedResultViolations(prepared(inKind(x.shares, 0n, floorUsdg)), allow, expectOfOuts(nothing))).toEqual([]);
        // The USDG minimum zeroed is still refused.
        const violations = preparedResultViolations(prepared(inKind(x.shares, 0n, 0n)), allow, expectOfOuts(nothing));
        expect(violations.some((v) => v.includes("is 0: a minimum output of zero accepts any price"))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("a basket leg whose aggregator call has a zero minimum is refused; a non-zero one passes", () => {
    fc.assert(
      fc.property(asked, fc.bigInt({ min: 0n, max: 10n ** 20n }), (x, legMinimum) => {
        const data = encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [usdg, weth, x.amount, legMinimum, zap] });
        const bundle = buildBasketBuy({
          owner,
          zap,
          pool,
          tokenIn: usdg,
          amountIn: x.amount,
          legs: [{ tokenIn: usdg, tokenOut: weth, amountIn: x.amount, data }],
          minBptOut: minimumOutOf(x.quoteOut, x.slippageBps),
          deadline: nowSeconds + 300n,
        });
        const violations = preparedResultViolations(prepared(bundle), allow, expectOf(x));
        if (legMinimum === 0n) expect(violations.some((v) => v.includes("legs[0].data.minOut is 0"))).toBe(true);
        else expect(violations).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});

describe("the x402 payment policy checks the asset and payTo (issue 32)", () => {
  const offer = (over: Partial<{ network: string; amount: string; asset: string; payTo: string }> = {}) => ({
    network: "eip155:4663",
    amount: "10000",
    asset: usdg,
    payTo: vault,
    ...over,
  });

  it("pays only in the configured asset, to the configured payee, on this chain, up to the max", () => {
    const policy = paymentPolicy({ maxAmountUsdg: "0.5", asset: usdg, payTo: vault });
    expect(policy(2, [offer()])).toHaveLength(1);
    expect(policy(2, [offer({ asset: weth })])).toEqual([]);
    expect(policy(2, [offer({ payTo: attacker })])).toEqual([]);
    expect(policy(2, [offer({ network: "eip155:1" })])).toEqual([]);
    expect(policy(2, [offer({ amount: "500001" })])).toEqual([]);
    expect(policy(2, [offer({ payTo: attacker }), offer()])).toEqual([offer()]);
  });

  it("unconfigured: the first 402's asset and payee are pinned, and a later 402 naming others is not paid", () => {
    const policy = paymentPolicy({ maxAmountUsdg: "0.5" });
    expect(policy(2, [offer()])).toHaveLength(1);
    expect(policy(2, [offer({ payTo: attacker })])).toEqual([]);
    expect(policy(2, [offer({ asset: weth })])).toEqual([]);
    expect(policy(2, [offer()])).toHaveLength(1);
  });
});
