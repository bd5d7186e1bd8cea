import fc from "fast-check";
import { encodeFunctionData, getAddress, maxUint256, type Address } from "viem";
import { describe, expect, it } from "vitest";
import { agentAccountAbi, mergedVaultAbi, testTokenAbi } from "../../../abis/index.js";
import {
  approvedSpender,
  buildLadder,
  buildLadderStrategy,
  buildSwap,
  buildVaultDeposit,
  buildVaultWithdraw,
  bundleKinds,
  decodeStep,
  moneySafetyViolations,
  walletSendCalls,
  walletSendCallsViolations,
  type BundleKind,
  type CheckedStep,
} from "../../../domain/bundles/index.js";
import { address, anyRequest, build, checkBuiltRequests, ownerOf, usdgOf, basketRequestInWindow, chainNow, DEADLINE_SECONDS } from "./arbitraries.js";
import { reencode, roleCount, withRole } from "./mutate.js";
import { buildBasketBuy } from "../../../domain/bundles/index.js";

describe("money safety of every built bundle (property)", () => {
  it("2,000 random valid requests over all kinds: no violations, every step decodes, value 0, wallet calls clean", () => {
    const kinds = checkBuiltRequests(2_000, (request, owner, bundle) => {
      expect(bundle.steps.length).toBeGreaterThan(0);
      for (const step of bundle.steps) expect(step.value).toBe(0n);
      // Every step decodes (else a violation), and every rule holds.
      expect(moneySafetyViolations(bundle, owner, 4663)).toEqual([]);
      // As sent, with USDG known (the token of USDG-paid steps is checked as well).
      const calls = walletSendCalls(bundle, owner);
      expect(walletSendCallsViolations(calls, owner, { usdg: usdgOf(request.p) })).toEqual([]);
      expect(calls.atomicRequired).toBe(bundle.steps.some((s) => approvedSpender(s) !== undefined));
    });
    expect([...kinds].sort()).toEqual([...bundleKinds].sort());
  }, 60_000);

  it("reports a twin with any one receiver/recipient/owner set to another address", () => {
    fc.assert(
      fc.property(anyRequest, address, fc.nat(), fc.nat(), (request, other, pickStep, pickRole) => {
        const owner = ownerOf(request);
        fc.pre(other !== owner);
        const bundle = build(request);
        const withRoles = bundle.steps.map((s, i) => [i, roleCount(s)] as const).filter(([, n]) => n > 0);
        fc.pre(withRoles.length > 0);
        const [i, n] = withRoles[pickStep % withRoles.length]!;
        const steps: CheckedStep[] = [...bundle.steps];
        steps[i] = withRole(steps[i]!, pickRole % n, other);
        const violations = moneySafetyViolations({ steps }, owner, 4663);
        expect(violations.some((v) => v.startsWith(`step ${i + 1} `) && v.includes(`not the owner`))).toBe(true);
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it("reports a twin whose approval is off by one either way", () => {
    fc.assert(
      fc.property(anyRequest, fc.constantFrom(1n, -1n), (request, delta) => {
        const owner = ownerOf(request);
        const bundle = build(request);
        const i = bundle.steps.findIndex((s) => approvedSpender(s) !== undefined);
        fc.pre(i >= 0);
        const steps: CheckedStep[] = [...bundle.steps];
        steps[i] = reencode(steps[i]!, ([spender, amount]) => [spender, (amount as bigint) + delta]);
        expect(moneySafetyViolations({ steps }, owner, 4663).length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it("reports a twin with a non-zero value, and a chain id other than 4663", () => {
    fc.assert(
      fc.property(anyRequest, fc.nat(), fc.bigInt({ min: 1n, max: 2n ** 96n }), fc.integer({ min: 0, max: 2 ** 40 }), (request, pick, value, chainId) => {
        fc.pre(chainId !== 4663);
        const owner = ownerOf(request);
        const bundle = build(request);
        const i = pick % bundle.steps.length;
        const steps: CheckedStep[] = bundle.steps.map((s, j) => (j === i ? { ...s, value } : s));
        expect(moneySafetyViolations({ steps }, owner, 4663)).toContain(`step ${i + 1}: value is ${value}, not 0`);
        expect(moneySafetyViolations(bundle, owner, chainId)).toEqual([`chain id ${chainId} is not 4663 (0x1237)`]);
      }),
      { numRuns: 200 },
    );
  }, 60_000);
});

describe("money safety: hand-made twins", () => {
  const OWNER = getAddress("0x00000000000000000000000000000000000a11ce");
  const OTHER = getAddress("0x000000000000000000000000000000000000bad0");
  const VAULT = getAddress("0x1000000000000000000000000000000000000001");
  const USDG = getAddress("0x2000000000000000000000000000000000000002");
  const ROUTER = getAddress("0x3000000000000000000000000000000000000003");
  const AGG = getAddress("0x4000000000000000000000000000000000000004");
  const TOKEN = getAddress("0x5000000000000000000000000000000000000005");
  const WETH = getAddress("0x6000000000000000000000000000000000000006");

  const deposit = buildVaultDeposit({ family: "merged", owner: OWNER, vault: VAULT, usdg: USDG, assets: 1_000_000n, minShares: 9n });
  const stockDeposit = buildVaultDeposit({
    family: "stock-token",
    owner: OWNER,
    vault: VAULT,
    usdg: USDG,
    router: ROUTER,
    aggregator: AGG,
    swapData: "0xabcd",
    assets: 5n,
    minShares: 1n,
  });
  const swap = buildSwap({
    owner: OWNER,
    router: ROUTER,
    tokenIn: WETH,
    tokenOut: TOKEN,
    amountIn: 10n ** 18n,
    minAmountOut: 1n,
    route: { to: AGG, data: "0x01" },
  });

  it("the built bundles are clean", () => {
    for (const b of [deposit, stockDeposit, swap]) expect(moneySafetyViolations(b, OWNER, 4663, { usdg: USDG })).toEqual([]);
  });

  it("a requestDeposit whose receiver is another address", () => {
    const twin = { to: VAULT, data: encodeFunctionData({ abi: mergedVaultAbi, functionName: "requestDeposit", args: [1_000_000n, OTHER, 9n] }), value: 0n };
    expect(moneySafetyViolations({ steps: [deposit.steps[0]!, twin] }, OWNER, 4663)).toEqual([
      `step 2 (mergedVaultAbi.requestDeposit): receiver is ${OTHER}, not the owner ${OWNER}`,
    ]);
  });

  it("a receiver or recipient inside a struct", () => {
    expect(moneySafetyViolations({ steps: [stockDeposit.steps[0]!, withRole(stockDeposit.steps[1]!, 0, OTHER)] }, OWNER, 4663)).toEqual([
      `step 2 (stockVaultRouterAbi.deposit): entry.receiver is ${OTHER}, not the owner ${OWNER}`,
    ]);
    expect(moneySafetyViolations({ steps: [swap.steps[0]!, withRole(swap.steps[1]!, 0, OTHER)] }, OWNER, 4663)).toEqual([
      `step 2 (swapRouterAbi.swap): req.recipient is ${OTHER}, not the owner ${OWNER}`,
    ]);
  });

  it("the stock vault's redeem with another owner", () => {
    const inKind = buildVaultWithdraw({ family: "stock-token", mode: "in-kind", owner: OWNER, vault: VAULT, shares: 7n });
    expect(moneySafetyViolations({ steps: [withRole(inKind.steps[0]!, 1, OTHER)] }, OWNER, 4663)).toEqual([
      `step 1 (stockVaultAbi.redeem): owner is ${OTHER}, not the owner ${OWNER}`,
    ]);
  });

  it("an approval one over, one under, unlimited, missing, or of another token", () => {
    const approve = (token: Address, amount: bigint): CheckedStep => ({
      to: token,
      data: encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [VAULT, amount] }),
      value: 0n,
    });
    const use = deposit.steps[1]!;
    expect(moneySafetyViolations({ steps: [approve(USDG, 1_000_001n), use] }, OWNER, 4663)).toEqual([
      `step 1: the approval of 1000001 to ${VAULT} is not spent exactly by the steps after it (1 left)`,
    ]);
    expect(moneySafetyViolations({ steps: [approve(USDG, 999_999n), use] }, OWNER, 4663)).toEqual([
      "step 2 (mergedVaultAbi.requestDeposit): pulls 1000000, more than the 999999 left of the approval of step 1",
    ]);
    expect(moneySafetyViolations({ steps: [approve(USDG, maxUint256), use] }, OWNER, 4663)).toEqual([
      `step 1 (testTokenAbi.approve): an unlimited approval to ${VAULT}`,
      `step 2 (mergedVaultAbi.requestDeposit): pulls 1000000 with no approval to ${VAULT} before it in the bundle`,
    ]);
    expect(moneySafetyViolations({ steps: [use] }, OWNER, 4663)).toEqual([
      `step 1 (mergedVaultAbi.requestDeposit): pulls 1000000 with no approval to ${VAULT} before it in the bundle`,
    ]);
    // With USDG known, an approval of another token is not the one the deposit pulls.
    expect(moneySafetyViolations({ steps: [approve(WETH, 1_000_000n), use] }, OWNER, 4663, { usdg: USDG }).length).toBe(2);
    // A swap names its token: approving another one is reported without being told USDG.
    const wrongToken = { ...swap.steps[0]!, to: TOKEN };
    expect(moneySafetyViolations({ steps: [wrongToken, swap.steps[1]!] }, OWNER, 4663)).toEqual([
      `step 2 (swapRouterAbi.swap): pulls 1000000000000000000 of ${WETH} with no approval to ${ROUTER} before it in the bundle`,
      `step 1: the approval of 1000000000000000000 to ${ROUTER} is not spent exactly by the steps after it (1000000000000000000 left)`,
    ]);
    // Use before approval.
    expect(moneySafetyViolations({ steps: [use, deposit.steps[0]!] }, OWNER, 4663).length).toBe(2);
  });

  it("a ladder whose total approval is one short, or whose orders sum past it", () => {
    const ladder = buildLadder({
      owner: OWNER,
      hook: ROUTER,
      usdg: USDG,
      token: TOKEN,
      sellToken: false,
      orders: [
        { amountIn: 5n, priceX18: 1n },
        { amountIn: 7n, priceX18: 2n },
      ],
    });
    expect(moneySafetyViolations(ladder, OWNER, 4663, { usdg: USDG })).toEqual([]);
    const short = reencode(ladder.steps[0]!, ([s, a]) => [s, (a as bigint) - 1n]);
    expect(moneySafetyViolations({ steps: [short, ...ladder.steps.slice(1)] }, OWNER, 4663)).toEqual([
      "step 3 (limitOrderHookAbi.create): pulls 7, more than the 6 left of the approval of step 1",
    ]);
    expect(moneySafetyViolations({ steps: ladder.steps.slice(0, 2) }, OWNER, 4663)).toEqual([
      `step 1: the approval of 12 to ${ROUTER} is not spent exactly by the steps after it (7 left)`,
    ]);
  });

  it("a non-zero value, a wrong chain id, and wallet calls with another from or chain", () => {
    expect(moneySafetyViolations({ steps: [deposit.steps[0]!, { ...deposit.steps[1]!, value: 1n }] }, OWNER, 4663)).toEqual(["step 2: value is 1, not 0"]);
    expect(moneySafetyViolations(deposit, OWNER, 1)).toEqual(["chain id 1 is not 4663 (0x1237)"]);
    expect(moneySafetyViolations(deposit, OWNER, "0x1237")).toEqual([]);
    const calls = walletSendCalls(deposit, OWNER);
    expect(walletSendCallsViolations({ ...calls, chainId: "0x1" as "0x1237" }, OWNER)).toEqual([
      "walletSendCalls chainId is 0x1, not 0x1237",
      "chain id 0x1 is not 4663 (0x1237)",
    ]);
    expect(walletSendCallsViolations({ ...calls, from: OTHER }, OWNER)).toEqual([`from is ${OTHER}, not the owner ${OWNER}`]);
    expect(walletSendCallsViolations({ ...calls, calls: calls.calls.map((c) => ({ ...c, value: "0x1" as "0x0" })) }, OWNER)).toEqual([
      "step 1: value is 1, not 0",
      "step 2: value is 1, not 0",
    ]);
  });

  it("calls that are not agent actions, and undecodable calldata", () => {
    const transfer = { to: USDG, data: encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [OTHER, 5n] }), value: 0n };
    expect(moneySafetyViolations({ steps: [transfer] }, OWNER, 4663)).toEqual([
      "step 1 (testTokenAbi.transfer): not an agent action",
      `step 1 (testTokenAbi.transfer): to is ${OTHER}, not the owner ${OWNER}`,
    ]);
    expect(moneySafetyViolations({ steps: [{ to: USDG, data: "0xdeadbeef", value: 0n }] }, OWNER, 4663)).toEqual([
      `step 1: calldata to ${USDG} decodes with no ABI in abis/`,
    ]);
    const viaAccount = buildLadderStrategy({ owner: OWNER, ladder: ROUTER, action: "collect", via: "account", account: VAULT, id: 3n, mask: 3 });
    expect(moneySafetyViolations(viaAccount, OWNER, 4663)).toEqual([]);
    const smuggled = { to: VAULT, data: encodeFunctionData({ abi: agentAccountAbi, functionName: "ladder", args: [transfer.data] }), value: 0n };
    expect(moneySafetyViolations({ steps: [smuggled] }, OWNER, 4663)).toEqual([
      "step 1 (agentAccountAbi.ladder): the account call is not a LadderStrategy open, close, setRepeat or collect",
    ]);
  });
});

describe("money safety: the deadline window (basket-buy, basket-sell, basket-make)", () => {
  /** Where a step's `deadline` argument is, or -1. */
  const deadlineIndex = (step: CheckedStep) => decodeStep(step)?.inputs.findIndex((p) => p.name === "deadline") ?? -1;

  it("basket bundles with a deadline in (now, now + 600]: no violations with the option; every other kind unaffected", () => {
    const seen = new Set<BundleKind>();
    fc.assert(
      fc.property(basketRequestInWindow, anyRequest, chainNow, ({ request, now }, other, otherNow) => {
        const window = { now, seconds: DEADLINE_SECONDS };
        const bundle = build(request);
        seen.add(bundle.kind);
        // The one deadline argument of the zap or maker call is the one the request gave.
        const withDeadline = bundle.steps.filter((s) => deadlineIndex(s) >= 0);
        expect(withDeadline.length).toBe(1);
        expect(decodeStep(withDeadline[0]!)!.args[deadlineIndex(withDeadline[0]!)]).toBe((request.p as { deadline: bigint }).deadline);
        expect(moneySafetyViolations(bundle, ownerOf(request), 4663, { deadlineWindow: window })).toEqual([]);
        expect(
          walletSendCallsViolations(walletSendCalls(bundle, ownerOf(request)), ownerOf(request), { usdg: usdgOf(request.p), deadlineWindow: window }),
        ).toEqual([]);
        // Kinds without a deadline argument are not touched by the option.
        const otherBundle = build(other);
        if (!otherBundle.steps.some((s) => deadlineIndex(s) >= 0))
          expect(moneySafetyViolations(otherBundle, ownerOf(other), 4663, { deadlineWindow: { now: otherNow, seconds: DEADLINE_SECONDS } })).toEqual([]);
      }),
      { numRuns: 500 },
    );
    expect([...seen].sort()).toEqual(["basket-buy", "basket-make", "basket-sell"]);
  }, 60_000);

  it("reports a twin whose deadline is past now + 600 or not after now, naming the step and the value", () => {
    const late = fc.bigInt({ min: 1n, max: 2n ** 64n });
    const early = fc.bigInt({ min: 0n, max: 2n ** 40n });
    fc.assert(
      fc.property(basketRequestInWindow, fc.boolean(), late, early, ({ request, now }, tooLate, over, under) => {
        const owner = ownerOf(request);
        const bundle = build(request);
        const i = bundle.steps.findIndex((s) => deadlineIndex(s) >= 0);
        const at = deadlineIndex(bundle.steps[i]!);
        const bad = tooLate ? now + BigInt(DEADLINE_SECONDS) + over : now - (under > now ? now : under);
        const steps: CheckedStep[] = [...bundle.steps];
        steps[i] = reencode(steps[i]!, (args) => args.map((a, j) => (j === at ? bad : a)));
        const violations = moneySafetyViolations({ steps }, owner, 4663, { deadlineWindow: { now, seconds: DEADLINE_SECONDS } });
        const d = decodeStep(steps[i]!)!;
        const expected = tooLate
          ? `step ${i + 1} (${d.contractAbiName}.${d.functionName}): deadline ${bad} is more than ${DEADLINE_SECONDS} s after the time now ${now}`
          : `step ${i + 1} (${d.contractAbiName}.${d.functionName}): deadline ${bad} is not after the time now ${now}`;
        expect(violations).toEqual([expected]);
        // Without the option the deadline is not checked (the pipeline does not know the chain's time).
        expect(moneySafetyViolations({ steps }, owner, 4663)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  }, 60_000);

  it("a hand-made basket-buy: the exact line, through walletSendCallsViolations as well", () => {
    const OWNER = getAddress("0x00000000000000000000000000000000000a11ce");
    const ZAP = getAddress("0x1000000000000000000000000000000000000001");
    const USDG = getAddress("0x2000000000000000000000000000000000000002");
    const POOL = getAddress("0x3000000000000000000000000000000000000003");
    const TOKEN = getAddress("0x5000000000000000000000000000000000000005");
    const now = 1_800_000_000n;
    const buy = (deadline: bigint) =>
      buildBasketBuy({
        owner: OWNER,
        zap: ZAP,
        pool: POOL,
        tokenIn: USDG,
        amountIn: 100n,
        legs: [{ tokenIn: USDG, tokenOut: TOKEN, amountIn: 100n, data: "0x01" }],
        minBptOut: 1n,
        deadline,
      });
    const window = { now, seconds: DEADLINE_SECONDS };
    expect(moneySafetyViolations(buy(now + 600n), OWNER, 4663, { usdg: USDG, deadlineWindow: window })).toEqual([]);
    expect(walletSendCallsViolations(walletSendCalls(buy(now + 601n), OWNER), OWNER, { deadlineWindow: window })).toEqual([
      `step 2 (basketZapAbi.buy): deadline ${now + 601n} is more than 600 s after the time now ${now}`,
    ]);
    expect(moneySafetyViolations(buy(now - 3600n), OWNER, 4663, { deadlineWindow: window })).toEqual([
      `step 2 (basketZapAbi.buy): deadline ${now - 3600n} is not after the time now ${now}`,
    ]);
  });

  it("the window's edges: now + 1 and now + 600 pass; now and now + 601 do not", () => {
    fc.assert(
      fc.property(basketRequestInWindow, ({ request, now }) => {
        const owner = ownerOf(request);
        const bundle = build(request);
        const i = bundle.steps.findIndex((s) => deadlineIndex(s) >= 0);
        const at = deadlineIndex(bundle.steps[i]!);
        const withDeadline = (x: bigint) => {
          const steps: CheckedStep[] = [...bundle.steps];
          steps[i] = reencode(steps[i]!, (args) => args.map((a, j) => (j === at ? x : a)));
          return moneySafetyViolations({ steps }, owner, 4663, { deadlineWindow: { now, seconds: DEADLINE_SECONDS } }).length;
        };
        expect(withDeadline(now + 1n)).toBe(0);
        expect(withDeadline(now + BigInt(DEADLINE_SECONDS))).toBe(0);
        expect(withDeadline(now)).toBe(1);
        expect(withDeadline(now + BigInt(DEADLINE_SECONDS) + 1n)).toBe(1);
      }),
      { numRuns: 100 },
    );
  }, 60_000);
});
