// The sign page's words for each step: known answers for the kinds a person signs most (with amounts in
// whole units and names from the deployments), the shared-selector cases read by the called contract's
// ABI, and a property: every step of every random valid bundle is read and described, approvals first.
import fc from "fast-check";
import { encodeFunctionData, getAddress, parseUnits, type Address } from "viem";
import { describe, expect, it } from "vitest";
import { limitOrderHookAbi } from "../../../abis/index.js";
import {
  buildGrid,
  buildLadderStrategy,
  buildLimitOrder,
  buildOrderAction,
  buildVaultCancelWithdraw,
  buildVaultDeposit,
  buildVaultWithdraw,
} from "../../../domain/bundles/index.js";
import { describeStep, describeSteps, groupDigits, type DescribeNames } from "../../../domain/bundles/describe.js";
import { anyRequest, build, ownerOf } from "./arbitraries.js";

const a = (n: number) => getAddress(`0x${n.toString(16).padStart(40, "0")}`);
const OWNER = a(0xa11ce);
const STRANGER = a(0xbad);
const USDG = a(0x1001);
const WETH = a(0x1002);
const ODD = a(0x1003); // deployed but not on the token list
const VAULT = a(0x2001);
const REDEEM_QUEUE = a(0x2002);
const UP_VAULT = a(0x2101);
const UP_DEPOSIT_QUEUE = a(0x2102);
const UP_WITHDRAWAL_QUEUE = a(0x2103);
const HOOK = a(0x3001);
const GRID = a(0x3002);
const LADDER = a(0x3003);
const ACCOUNT = a(0x3004);

const names: DescribeNames = {
  owner: OWNER,
  usdg: USDG,
  tokens: {
    [USDG.toLowerCase()]: { symbol: "USDG", decimals: 6, verified: true },
    [WETH.toLowerCase()]: { symbol: "WETH", decimals: 18, verified: true },
    [ODD.toLowerCase()]: { symbol: "ODD", decimals: 8, verified: false },
    [VAULT.toLowerCase()]: { symbol: "Merged WETH/USDG shares", decimals: 12 },
    [UP_VAULT.toLowerCase()]: { symbol: "Up WETH/USDG shares", decimals: 12 },
  },
  contracts: {
    [VAULT.toLowerCase()]: { name: "the Merged WETH/USDG vault", abi: "mergedVaultAbi", token: WETH },
    [REDEEM_QUEUE.toLowerCase()]: { name: "the Merged WETH/USDG vault's redeem queue", abi: "redeemQueueAbi", vault: VAULT },
    [UP_VAULT.toLowerCase()]: { name: "the Up WETH/USDG vault", abi: "upVaultAbi", token: WETH },
    [UP_DEPOSIT_QUEUE.toLowerCase()]: { name: "the Up WETH/USDG vault's deposit queue", abi: "upDepositQueueAbi", vault: UP_VAULT },
    [UP_WITHDRAWAL_QUEUE.toLowerCase()]: { name: "the Up WETH/USDG vault's withdrawal queue", abi: "upWithdrawalQueueAbi", vault: UP_VAULT },
    [HOOK.toLowerCase()]: { name: "the limit-order hook", abi: "limitOrderHookAbi" },
    [GRID.toLowerCase()]: { name: "the grid strategy", abi: "gridStrategyAbi" },
    [LADDER.toLowerCase()]: { name: "the ladder strategy", abi: "ladderStrategyAbi" },
  },
};

describe("groupDigits", () => {
  it("groups the whole part and keeps every decimal", () => {
    expect(groupDigits("0")).toBe("0");
    expect(groupDigits("999")).toBe("999");
    expect(groupDigits("1000")).toBe("1,000");
    expect(groupDigits("1234567.000001")).toBe("1,234,567.000001");
    expect(groupDigits("-12345.5")).toBe("-12,345.5");
  });
});

describe("describeSteps", () => {
  it("merged vault deposit: the approval and the deposit in whole units, named", () => {
    const bundle = buildVaultDeposit({
      family: "merged",
      owner: OWNER,
      vault: VAULT,
      usdg: USDG,
      assets: parseUnits("250", 6),
      minShares: parseUnits("0.5", 12),
    });
    const [approve, deposit] = describeSteps(bundle.steps, names);
    expect(approve).toMatchObject({
      action: "Approve",
      summary: "Approve 250 USDG to the Merged WETH/USDG vault",
      approval: true,
      known: true,
      to: USDG,
      toName: "the USDG token",
    });
    expect(deposit).toMatchObject({
      action: "Deposit",
      summary: "Deposit 250 USDG into the Merged WETH/USDG vault",
      approval: false,
      to: VAULT,
      toName: "the Merged WETH/USDG vault",
    });
    expect(deposit!.details[0]).toBe(`At least 0.5 Merged WETH/USDG shares, to your wallet (${OWNER.slice(0, 6)}…${OWNER.slice(-4)}).`);
  });

  it("up vault deposit goes through its queue and names the vault", () => {
    const bundle = buildVaultDeposit({
      family: "up",
      owner: OWNER,
      vault: UP_VAULT,
      usdg: USDG,
      depositQueue: UP_DEPOSIT_QUEUE,
      assets: 1_234_567_890_000n,
      minShares: 0n,
    });
    const [approve, deposit] = describeSteps(bundle.steps, names);
    expect(approve!.summary).toBe("Approve 1,234,567.89 USDG to the Up WETH/USDG vault's deposit queue");
    expect(deposit!.summary).toBe("Deposit 1,234,567.89 USDG into the Up WETH/USDG vault through the Up WETH/USDG vault's deposit queue");
  });

  it("withdrawals: queue and in kind, shares with 12 decimals and the pair token", () => {
    const queued = buildVaultWithdraw({
      family: "merged",
      mode: "queue",
      owner: OWNER,
      vault: VAULT,
      redeemQueue: REDEEM_QUEUE,
      shares: parseUnits("3", 12),
      minAssetsOut: parseUnits("2.5", 6),
    });
    const [approveShares, request] = describeSteps(queued.steps, names);
    expect(approveShares!.summary).toBe("Approve 3 Merged WETH/USDG shares to the Merged WETH/USDG vault's redeem queue");
    expect(request!.summary).toBe("Queue a withdrawal of 3 Merged WETH/USDG shares at the Merged WETH/USDG vault's redeem queue");
    expect(request!.details[0]).toMatch(/^At least 2.5 USDG when it is settled, to your wallet/);

    const inKind = buildVaultWithdraw({
      family: "merged",
      mode: "in-kind",
      owner: OWNER,
      vault: VAULT,
      shares: parseUnits("1", 12),
      minTokenOut: parseUnits("0.01", 18),
      minUsdgOut: 5_000_000n,
    });
    const [exit] = describeSteps(inKind.steps, names);
    expect(exit!.summary).toBe("Withdraw 1 Merged WETH/USDG shares from the Merged WETH/USDG vault in kind");
    expect(exit!.details[0]).toMatch(/^At least 0.01 WETH and 5 USDG, to your wallet/);
  });

  it("a shared selector (cancel(uint256)) is read with the called contract's ABI", () => {
    const upCancel = buildVaultCancelWithdraw({ family: "up", owner: OWNER, vault: UP_VAULT, withdrawalQueue: UP_WITHDRAWAL_QUEUE, id: 7n });
    expect(describeStep(upCancel.steps[0]!, names)).toMatchObject({
      action: "Cancel withdrawal",
      summary: "Cancel queued withdrawal #7 at the Up WETH/USDG vault's withdrawal queue",
    });
    const orderCancel = buildOrderAction({ owner: OWNER, hook: HOOK, action: "cancel", id: 7n });
    expect(describeStep(orderCancel.steps[0]!, names)).toMatchObject({ action: "Cancel order", summary: "Cancel limit order #7 on the limit-order hook" });
  });

  it("limit orders: buy with USDG at a price per token; sell of an unverified token shows its address", () => {
    const buy = buildLimitOrder({
      owner: OWNER,
      hook: HOOK,
      usdg: USDG,
      token: WETH,
      sellToken: false,
      amountIn: 25_000_000n,
      priceX18: parseUnits("2400.5", 18),
    });
    const [approve, order] = describeSteps(buy.steps, names);
    expect(approve!.summary).toBe("Approve 25 USDG to the limit-order hook");
    expect(order!.summary).toBe("Place a limit order on the limit-order hook: buy WETH with 25 USDG at 2,400.5 USDG per WETH");

    const sell = buildLimitOrder({ owner: OWNER, hook: HOOK, usdg: USDG, token: ODD, sellToken: true, amountIn: 150_000_000n, priceX18: parseUnits("3", 18) });
    const [approveOdd, orderOdd] = describeSteps(sell.steps, names);
    expect(approveOdd!.summary).toBe(`Approve 1.5 ODD (unverified token ${ODD}) to the limit-order hook`);
    expect(orderOdd!.summary).toBe(`Place a limit order on the limit-order hook: sell 1.5 ODD (unverified token ${ODD}) at 3 USDG per ODD`);
  });

  it("a token the names lack is given in base units with its address", () => {
    const unknown = a(0x9999);
    const order = buildLimitOrder({ owner: OWNER, hook: HOOK, usdg: USDG, token: unknown, sellToken: true, amountIn: 1234n, priceX18: 1n });
    expect(describeStep(order.steps[0]!, names).summary).toBe(`Approve 1,234 base units of token ${unknown} to the limit-order hook`);
  });

  it("grid open: the amount, both lines and whether it repeats", () => {
    const grid = buildGrid({
      owner: OWNER,
      strategy: GRID,
      action: "open",
      usdg: USDG,
      token: WETH,
      buyPriceX18: parseUnits("2000", 18),
      sellPriceX18: parseUnits("2200", 18),
      amountUsdg: 100_000_000n,
      repeat: true,
    });
    const [approve, open] = describeSteps(grid.steps, names);
    expect(approve!.summary).toBe("Approve 100 USDG to the grid strategy");
    expect(open!.summary).toBe("Open a grid on WETH with 100 USDG on the grid strategy: buy at 2,000 USDG per WETH, sell at 2,200 USDG per WETH");
    expect(open!.details).toEqual(["It repeats: after each sell it buys again at the buy line."]);
  });

  it("ladder strategy: parts in words, and the agent account's call described as the ladder call it carries", () => {
    const legs = [
      { buyPriceX18: parseUnits("1900", 18), sellPriceX18: parseUnits("2100", 18), amount: 60_000_000n },
      { buyPriceX18: parseUnits("1800", 18), sellPriceX18: parseUnits("2000", 18), amount: 40_000_000n },
    ];
    const open = buildLadderStrategy({
      owner: OWNER,
      ladder: LADDER,
      action: "open",
      usdg: USDG,
      token: WETH,
      legs,
      sellFirst: false,
      repeat: true,
      oneWay: false,
    });
    const described = describeSteps(open.steps, names);
    expect(described.map((d) => d.approval)).toEqual([true, false]);
    expect(described[1]!.summary).toBe("Open a ladder strategy on WETH with 2 parts and 100 USDG in all, on the ladder strategy");
    expect(described[1]!.details).toEqual([
      "Part 1: 60 USDG, buy at 1,900 USDG per WETH, sell at 2,100 USDG per WETH.",
      "Part 2: 40 USDG, buy at 1,800 USDG per WETH, sell at 2,000 USDG per WETH.",
      "Buys first; repeats.",
    ]);

    const viaAccount = buildLadderStrategy({ owner: OWNER, ladder: LADDER, action: "close", via: "account", account: ACCOUNT, id: 12n, mask: 3 });
    const [call] = describeSteps(viaAccount.steps, names);
    expect(call!.summary).toBe(`Through your agent account ${ACCOUNT}: close ladder strategy #12 on the ladder strategy`);
    expect(call!.details).toEqual(["Every part stops, and what it holds on both sides (token and USDG) is paid out to you now."]);
  });

  it("a receiver that is not the owner is called out", () => {
    const data = encodeFunctionData({ abi: limitOrderHookAbi, functionName: "cancel", args: [1n] });
    expect(describeStep({ to: HOOK, data }, names).known).toBe(true);
    const deposit = buildVaultDeposit({ family: "merged", owner: STRANGER, vault: VAULT, usdg: USDG, assets: 1_000_000n, minShares: 0n });
    expect(describeStep(deposit.steps[1]!, names).details[0]).toBe(`At least 0 Merged WETH/USDG shares, to ${STRANGER}, which is NOT your wallet.`);
  });

  it("calldata no ABI reads is said to be unreadable, not guessed", () => {
    expect(describeStep({ to: HOOK, data: "0xdeadbeef00" }, names)).toMatchObject({
      known: false,
      action: "Unknown call",
      summary: "Call the limit-order hook with data the service cannot read",
    });
  });

  it("property: every step of every random valid bundle is read and described; approvals are marked", () => {
    fc.assert(
      fc.property(anyRequest, (request) => {
        const bundle = build(request);
        const owner = ownerOf(request) as Address;
        const described = describeSteps(bundle.steps, { ...names, owner });
        expect(described).toHaveLength(bundle.steps.length);
        for (const [i, d] of described.entries()) {
          expect(d.known, `${request.kind} step ${i + 1}`).toBe(true);
          expect(d.summary.length).toBeGreaterThan(10);
          expect(d.summary).not.toMatch(/undefined|NaN|\[object/);
          for (const line of d.details) expect(line).not.toMatch(/undefined|NaN|\[object/);
          expect(d.approval).toBe(bundle.steps[i]!.data.startsWith("0x095ea7b3"));
          // Receivers are the owner in every valid bundle: no warning.
          expect([d.summary, ...d.details].join(" ")).not.toContain("NOT your wallet");
        }
      }),
      { numRuns: 500 },
    );
  });
});
