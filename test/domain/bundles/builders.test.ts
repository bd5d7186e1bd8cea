// Known answers: each builder's steps, decoded back with the ABIs in abis/.
import { getAddress, maxUint256, toFunctionSelector, type Address } from "viem";
import { describe, expect, it } from "vitest";
import {
  BundleError,
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
  decodeStep,
  ladderRevertDetails,
  type Bundle,
  type LadderStrategyMarket,
} from "../../../domain/bundles/index.js";

const a = (n: number): Address => getAddress(`0x${n.toString(16).padStart(40, "0")}`);
const OWNER = getAddress("0x00000000000000000000000000000000000a11ce");
const VAULT = a(0x1001);
const USDG = a(0x2002);
const QUEUE = a(0x3003);
const ROUTER = a(0x4004);
const AGG = a(0x5005);
const TOKEN = a(0x6006);
const HOOK = a(0x7007);
const STRATEGY = a(0x8008);
const ACCOUNT = a(0x9009);
const ZAP = a(0xa00a);
const POOL = a(0xb00b);
const WETH = a(0xc00c);
const T1 = a(0xd001);
const T2 = a(0xd002);

/** Each step as [to, "abi.function", args]. */
const read = (bundle: Bundle) =>
  bundle.steps.map((s) => {
    expect(s.value).toBe(0n);
    const d = decodeStep(s);
    if (!d) throw new Error(`step to ${s.to} does not decode`);
    return [s.to, `${d.contractAbiName}.${d.functionName}`, d.args];
  });
const approve = (token: Address, spender: Address, amount: bigint) => [token, "testTokenAbi.approve", [spender, amount]];
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof BundleError) return { code: e.code, details: e.details };
    throw e;
  }
  throw new Error("not refused");
};

describe("encoding", () => {
  it("approve is the standard ERC-20 calldata, and selectors match the Solidity signatures", () => {
    const b = buildVaultDeposit({ family: "merged", owner: OWNER, vault: VAULT, usdg: USDG, assets: 5n, minShares: 0n });
    expect(b.steps[0]!.data).toBe(`0x095ea7b3${VAULT.slice(2).toLowerCase().padStart(64, "0")}${"5".padStart(64, "0")}`);
    expect(b.steps[1]!.data.slice(0, 10)).toBe(toFunctionSelector("requestDeposit(uint256,address,uint256)"));
  });
});

describe("buildVaultDeposit", () => {
  it("merged: approve USDG to the vault, then requestDeposit(assets, owner, minShares)", () => {
    const b = buildVaultDeposit({ family: "merged", owner: OWNER, vault: VAULT, usdg: USDG, assets: 1_000_000n, minShares: 990_000_000n });
    expect(b.kind).toBe("vault-deposit");
    expect(read(b)).toEqual([approve(USDG, VAULT, 1_000_000n), [VAULT, "mergedVaultAbi.requestDeposit", [1_000_000n, OWNER, 990_000_000n]]]);
    expect(b.params).toMatchObject({
      assets: "1000000",
      minShares: "990000000",
      receiver: OWNER,
      approvals: [{ token: USDG, spender: VAULT, amount: "1000000" }],
    });
  });

  it("up: approve USDG to the deposit queue, then its requestDeposit(assets, owner, minimumSharesOut)", () => {
    const b = buildVaultDeposit({ family: "up", owner: OWNER, vault: VAULT, usdg: USDG, depositQueue: QUEUE, assets: 7n, minShares: 3n });
    expect(b.kind).toBe("up-vault-deposit");
    // Same selector as the merged vault's requestDeposit: it reads first as mergedVaultAbi.
    expect(read(b)).toEqual([approve(USDG, QUEUE, 7n), [QUEUE, "mergedVaultAbi.requestDeposit", [7n, OWNER, 3n]]]);
  });

  it("stock-token: approve USDG to the router, then deposit({vault, usdgIn, minShares, receiver: owner, aggregator, swapData})", () => {
    const b = buildVaultDeposit({
      family: "stock-token",
      owner: OWNER,
      vault: VAULT,
      usdg: USDG,
      router: ROUTER,
      aggregator: AGG,
      swapData: "0xbeef",
      assets: 9n,
      minShares: 8n,
    });
    expect(b.kind).toBe("stock-vault-deposit");
    expect(read(b)).toEqual([
      approve(USDG, ROUTER, 9n),
      [ROUTER, "stockVaultRouterAbi.deposit", [{ vault: VAULT, usdgIn: 9n, minShares: 8n, receiver: OWNER, aggregator: AGG, swapData: "0xbeef" }]],
    ]);
  });

  it("refuses a missing family contract, zero assets, a bad address", () => {
    expect(refusal(() => buildVaultDeposit({ family: "up", owner: OWNER, vault: VAULT, usdg: USDG, assets: 7n, minShares: 3n })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildVaultDeposit({ family: "merged", owner: OWNER, vault: VAULT, usdg: USDG, assets: 0n, minShares: 0n })).code).toBe(
      "AMOUNT_TOO_SMALL",
    );
    expect(refusal(() => buildVaultDeposit({ family: "merged", owner: "0x12" as Address, vault: VAULT, usdg: USDG, assets: 1n, minShares: 0n })).code).toBe(
      "INVALID_REQUEST",
    );
    expect(refusal(() => buildVaultDeposit({ family: "merged", owner: OWNER, vault: VAULT, usdg: USDG, assets: 1n, minShares: -1n })).code).toBe(
      "INVALID_REQUEST",
    );
    expect(refusal(() => buildVaultDeposit({ family: "lending" as "merged", owner: OWNER, vault: VAULT, usdg: USDG, assets: 1n, minShares: 0n })).code).toBe(
      "INVALID_REQUEST",
    );
  });
});

describe("buildVaultCancelDeposit and buildVaultCancelWithdraw", () => {
  it("merged cancelDeposit(id); up deposit queue cancel(id)", () => {
    const m = buildVaultCancelDeposit({ family: "merged", owner: OWNER, vault: VAULT, id: 42n });
    expect(m.kind).toBe("vault-cancel-deposit");
    expect(read(m)).toEqual([[VAULT, "mergedVaultAbi.cancelDeposit", [42n]]]);
    const u = buildVaultCancelDeposit({ family: "up", owner: OWNER, vault: VAULT, id: 43n, depositQueue: QUEUE });
    expect(u.kind).toBe("up-vault-cancel");
    expect(read(u)).toEqual([[QUEUE, "limitOrderHookAbi.cancel", [43n]]]); // cancel(uint256): one selector for all
    expect(u.steps[0]!.data.slice(0, 10)).toBe(toFunctionSelector("cancel(uint256)"));
    expect(refusal(() => buildVaultCancelDeposit({ family: "stock-token", owner: OWNER, vault: VAULT, id: 1n })).code).toBe("INVALID_REQUEST");
  });

  it("merged redeem queue cancel(id); up withdrawal queue cancel(id)", () => {
    const m = buildVaultCancelWithdraw({ family: "merged", owner: OWNER, vault: VAULT, id: 5n, redeemQueue: QUEUE });
    expect(m.kind).toBe("vault-cancel-withdraw");
    expect(m.steps).toEqual([{ to: QUEUE, data: `${toFunctionSelector("cancel(uint256)")}${"5".padStart(64, "0")}`, value: 0n }]);
    const u = buildVaultCancelWithdraw({ family: "up", owner: OWNER, vault: VAULT, id: 6n, withdrawalQueue: ROUTER });
    expect(u.kind).toBe("up-vault-cancel");
    expect(u.params).toMatchObject({ vault: VAULT, queue: ROUTER, id: "6" });
    expect(u.steps[0]!.to).toBe(ROUTER);
    expect(refusal(() => buildVaultCancelWithdraw({ family: "merged", owner: OWNER, vault: VAULT, id: 5n })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildVaultCancelWithdraw({ family: "stock-token", owner: OWNER, vault: VAULT, id: 5n })).code).toBe("INVALID_REQUEST");
  });
});

describe("buildVaultWithdraw", () => {
  const base = { owner: OWNER, vault: VAULT, shares: 1_000_000_000_000n };
  it("merged usdg: redeem(shares, owner, minUsdgOut, route)", () => {
    const b = buildVaultWithdraw({ ...base, family: "merged", mode: "usdg", minUsdgOut: 11n, route: "0x1234" });
    expect(b.kind).toBe("vault-withdraw");
    expect(read(b)).toEqual([[VAULT, "mergedVaultAbi.redeem", [base.shares, OWNER, 11n, "0x1234"]]]);
  });
  it("merged in-kind: redeemInKind(shares, owner, minTokenOut, minUsdgOut)", () => {
    const b = buildVaultWithdraw({ ...base, family: "merged", mode: "in-kind", minTokenOut: 2n, minUsdgOut: 3n });
    expect(read(b)).toEqual([[VAULT, "mergedVaultAbi.redeemInKind", [base.shares, OWNER, 2n, 3n]]]);
  });
  it("merged queue: approve shares to the redeem queue, then request(shares, owner, minAssetsOut)", () => {
    const b = buildVaultWithdraw({ ...base, family: "merged", mode: "queue", redeemQueue: QUEUE, minAssetsOut: 4n });
    expect(read(b)).toEqual([approve(VAULT, QUEUE, base.shares), [QUEUE, "redeemQueueAbi.request", [base.shares, OWNER, 4n]]]);
  });
  it("up queue: approve shares to the withdrawal queue, then requestRedeem(shares, owner, minimumAssetsOut)", () => {
    const b = buildVaultWithdraw({ ...base, family: "up", mode: "queue", withdrawalQueue: QUEUE, minAssetsOut: 4n });
    expect(b.kind).toBe("up-vault-withdraw");
    expect(read(b)).toEqual([approve(VAULT, QUEUE, base.shares), [QUEUE, "upWithdrawalQueueAbi.requestRedeem", [base.shares, OWNER, 4n]]]);
  });
  it("up in-kind: redeemEmergencyInKind({shares, receiver: owner, minTokenOut, minUsdgOut})", () => {
    const b = buildVaultWithdraw({ ...base, family: "up", mode: "in-kind", minTokenOut: 2n, minUsdgOut: 3n });
    expect(read(b)).toEqual([[VAULT, "upVaultAbi.redeemEmergencyInKind", [{ shares: base.shares, receiver: OWNER, minTokenOut: 2n, minUsdgOut: 3n }]]]);
  });
  it("stock-token usdg: approve shares to the router, then withdrawUSDG(vault, shares, minUsdgOut, owner, aggregator, route)", () => {
    const b = buildVaultWithdraw({ ...base, family: "stock-token", mode: "usdg", router: ROUTER, aggregator: AGG, route: "0xaa", minUsdgOut: 5n });
    expect(b.kind).toBe("stock-vault-withdraw");
    expect(read(b)).toEqual([approve(VAULT, ROUTER, base.shares), [ROUTER, "stockVaultRouterAbi.withdrawUSDG", [VAULT, base.shares, 5n, OWNER, AGG, "0xaa"]]]);
  });
  it("stock-token in-kind: the vault's redeem(shares, owner, owner)", () => {
    const b = buildVaultWithdraw({ ...base, family: "stock-token", mode: "in-kind" });
    expect(read(b)).toEqual([[VAULT, "stockVaultAbi.redeem", [base.shares, OWNER, OWNER]]]);
  });
  it("refuses modes a family does not offer, and missing minimums", () => {
    expect(refusal(() => buildVaultWithdraw({ ...base, family: "up", mode: "usdg", minUsdgOut: 1n, route: "0x" })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildVaultWithdraw({ ...base, family: "stock-token", mode: "queue", minAssetsOut: 1n })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildVaultWithdraw({ ...base, family: "merged", mode: "in-kind", minTokenOut: 1n })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildVaultWithdraw({ ...base, family: "merged", mode: "queue", minAssetsOut: 1n })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildVaultWithdraw({ ...base, shares: 0n, family: "stock-token", mode: "in-kind" })).code).toBe("AMOUNT_TOO_SMALL");
  });
});

describe("buildLimitOrder, buildLadder, buildOrderAction", () => {
  it("a buy: approve USDG to the hook, then create(token, false, amountIn, priceX18)", () => {
    const b = buildLimitOrder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: false, amountIn: 50_000_000n, priceX18: 12n * 10n ** 18n });
    expect(b.kind).toBe("limit-order");
    expect(read(b)).toEqual([approve(USDG, HOOK, 50_000_000n), [HOOK, "limitOrderHookAbi.create", [TOKEN, false, 50_000_000n, 12n * 10n ** 18n]]]);
  });
  it("a market sell: approve the token, then createMarketOrder(token, true, amountIn, minAmountOut)", () => {
    const b = buildLimitOrder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: true, amountIn: 10n ** 18n, market: true, minAmountOut: 9n });
    expect(read(b)).toEqual([approve(TOKEN, HOOK, 10n ** 18n), [HOOK, "limitOrderHookAbi.createMarketOrder", [TOKEN, true, 10n ** 18n, 9n]]]);
    expect(refusal(() => buildLimitOrder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: true, amountIn: 1n, market: true })).code).toBe(
      "INVALID_REQUEST",
    );
    expect(refusal(() => buildLimitOrder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: true, amountIn: 1n })).code).toBe("INVALID_REQUEST");
  });
  it("a ladder: ONE approval of the total, then one create per order in order", () => {
    const orders = [
      { amountIn: 10n, priceX18: 100n },
      { amountIn: 20n, priceX18: 90n },
      { amountIn: 30n, priceX18: 80n },
    ];
    const b = buildLadder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: false, orders });
    expect(b.kind).toBe("ladder");
    expect(read(b)).toEqual([approve(USDG, HOOK, 60n), ...orders.map((o) => [HOOK, "limitOrderHookAbi.create", [TOKEN, false, o.amountIn, o.priceX18]])]);
    expect(b.params).toMatchObject({ total: "60" });
    const sell = buildLadder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: true, orders: orders.slice(0, 2) });
    expect(read(sell)[0]).toEqual(approve(TOKEN, HOOK, 30n));
  });
  it("a ladder has 2-20 orders, each above 0", () => {
    const one = [{ amountIn: 1n, priceX18: 1n }];
    expect(refusal(() => buildLadder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: false, orders: one })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildLadder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: false, orders: Array(21).fill(one[0]) })).code).toBe(
      "INVALID_REQUEST",
    );
    expect(buildLadder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: false, orders: Array(20).fill(one[0]) }).steps).toHaveLength(21);
    expect(
      refusal(() => buildLadder({ owner: OWNER, hook: HOOK, usdg: USDG, token: TOKEN, sellToken: false, orders: [one[0]!, { amountIn: 0n, priceX18: 1n }] })),
    ).toEqual({
      code: "AMOUNT_TOO_SMALL",
      details: { part: 2 },
    });
  });
  it("order actions are one step on the hook", () => {
    for (const action of ["cancel", "claim0", "claim1", "claimBoth", "realize"] as const) {
      const b = buildOrderAction({ owner: OWNER, hook: HOOK, action, id: 77n });
      expect(b.kind).toBe("order-action");
      expect(read(b)).toEqual([[HOOK, `limitOrderHookAbi.${action}`, [77n]]]);
    }
    expect(refusal(() => buildOrderAction({ owner: OWNER, hook: HOOK, action: "fill" as "cancel", id: 1n })).code).toBe("INVALID_REQUEST");
  });
});

describe("buildGrid", () => {
  const open = {
    owner: OWNER,
    strategy: STRATEGY,
    usdg: USDG,
    token: TOKEN,
    buyPriceX18: 10n ** 18n,
    sellPriceX18: 2n * 10n ** 18n,
    amountUsdg: 200_000_000n,
    repeat: true,
  };
  const p = { token: TOKEN, buyPriceX18: 10n ** 18n, sellPriceX18: 2n * 10n ** 18n, amountUsdg: 200_000_000n, repeat: true };
  it("open: approve exactly amountUsdg, then open(params)", () => {
    expect(read(buildGrid({ ...open, action: "open" }))).toEqual([approve(USDG, STRATEGY, 200_000_000n), [STRATEGY, "gridStrategyAbi.open", [p]]]);
  });
  it("openWithMarket: approve exactly amountUsdg, then openWithMarket(params, minTokenOut)", () => {
    expect(read(buildGrid({ ...open, action: "openWithMarket", minTokenOut: 3n }))).toEqual([
      approve(USDG, STRATEGY, 200_000_000n),
      [STRATEGY, "gridStrategyAbi.openWithMarket", [p, 3n]],
    ]);
  });
  it("close, setRepeat, collect: one step", () => {
    expect(read(buildGrid({ owner: OWNER, strategy: STRATEGY, action: "close", id: 4n }))).toEqual([[STRATEGY, "gridStrategyAbi.close", [4n]]]);
    expect(read(buildGrid({ owner: OWNER, strategy: STRATEGY, action: "setRepeat", id: 4n, repeat: false }))).toEqual([
      [STRATEGY, "gridStrategyAbi.setRepeat", [4n, false]],
    ]);
    expect(read(buildGrid({ owner: OWNER, strategy: STRATEGY, action: "collect", id: 4n }))).toEqual([[STRATEGY, "gridStrategyAbi.collect", [4n]]]);
  });
  it("refuses lines the wrong way round and missing fields", () => {
    expect(refusal(() => buildGrid({ ...open, action: "open", sellPriceX18: open.buyPriceX18 })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildGrid({ ...open, action: "openWithMarket" })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildGrid({ owner: OWNER, strategy: STRATEGY, action: "setRepeat", id: 1n })).code).toBe("INVALID_REQUEST");
  });
});

describe("buildLadderStrategy", () => {
  const legs = [
    { buyPriceX18: 9n * 10n ** 18n, sellPriceX18: 11n * 10n ** 18n, amount: 60_000_000n },
    { buyPriceX18: 8n * 10n ** 18n, sellPriceX18: 12n * 10n ** 18n, amount: 40_000_000n },
  ];
  const open = { owner: OWNER, ladder: STRATEGY, action: "open" as const, usdg: USDG, token: TOKEN, legs, repeat: true, oneWay: false };

  it("open: one exact approval of the total in USDG, then open(token, legs, sellFirst, repeat, oneWay)", () => {
    const b = buildLadderStrategy(open);
    expect(b.kind).toBe("ladder-strategy");
    expect(read(b)).toEqual([approve(USDG, STRATEGY, 100_000_000n), [STRATEGY, "ladderStrategyAbi.open", [TOKEN, legs, false, true, false]]]);
  });
  it("open sell-first: the approval is of the token", () => {
    const b = buildLadderStrategy({ ...open, sellFirst: true });
    expect(read(b)).toEqual([approve(TOKEN, STRATEGY, 100_000_000n), [STRATEGY, "ladderStrategyAbi.open", [TOKEN, legs, true, true, false]]]);
  });
  it("close, setRepeat, collect with their masks", () => {
    expect(read(buildLadderStrategy({ owner: OWNER, ladder: STRATEGY, action: "close", id: 2n, mask: 0 }))).toEqual([
      [STRATEGY, "ladderStrategyAbi.close", [2n, 0]],
    ]);
    expect(read(buildLadderStrategy({ owner: OWNER, ladder: STRATEGY, action: "setRepeat", id: 2n, mask: 1 }))).toEqual([
      [STRATEGY, "ladderStrategyAbi.setRepeat", [2n, 1]],
    ]);
    expect(read(buildLadderStrategy({ owner: OWNER, ladder: STRATEGY, action: "collect", id: 2n, mask: 3 }))).toEqual([
      [STRATEGY, "ladderStrategyAbi.collect", [2n, 3]],
    ]);
    for (const [action, mask] of [
      ["close", 4],
      ["setRepeat", 0],
      ["collect", 0],
      ["collect", 4],
    ] as const)
      expect(refusal(() => buildLadderStrategy({ owner: OWNER, ladder: STRATEGY, action, id: 2n, mask })).code).toBe("INVALID_REQUEST");
  });
  it("via account: a single step, the account's ladder(data) with data the LadderStrategy call", () => {
    const b = buildLadderStrategy({ ...open, via: "account", account: ACCOUNT });
    expect(b.kind).toBe("account-agent-call");
    const [[to, fn, [data]]] = read(b) as [[Address, string, [`0x${string}`]]];
    expect([to, fn]).toEqual([ACCOUNT, "agentAccountAbi.ladder"]);
    const inner = decodeStep({ data });
    expect([inner?.contractAbiName, inner?.functionName, inner?.args]).toEqual(["ladderStrategyAbi", "open", [TOKEN, legs, false, true, false]]);
    expect(data).toBe(buildLadderStrategy(open).steps[1]!.data);
    expect(refusal(() => buildLadderStrategy({ ...open, via: "account" })).code).toBe("INVALID_REQUEST");
  });
  it("1-16 parts", () => {
    expect(refusal(() => buildLadderStrategy({ ...open, legs: [] })).code).toBe("INVALID_REQUEST");
    expect(refusal(() => buildLadderStrategy({ ...open, legs: Array(17).fill(legs[0]) })).code).toBe("INVALID_REQUEST");
    expect(buildLadderStrategy({ ...open, legs: Array(16).fill(legs[0]) }).params).toMatchObject({ total: String(16n * 60_000_000n) });
  });

  describe("against the market (LadderStrategy._checkOpen), parts from 1", () => {
    const market: LadderStrategyMarket = { priceX18: 10n * 10n ** 18n, decimals: 18, minFirstLegUsdg: 50_000_000n, minFollowUpUsdg: 25_000_000n, feeBps: 50 };
    it("passes a good ladder", () => {
      expect(buildLadderStrategy({ ...open, market }).steps).toHaveLength(2);
    });
    it("NO_REFERENCE", () => {
      expect(refusal(() => buildLadderStrategy({ ...open, market: { ...market, priceX18: 0n } })).code).toBe("NO_REFERENCE");
    });
    it("WRONG_SIDE names the part, the price now (priceUsd) and the line it crossed (limitUsd), in USDG per whole token", () => {
      const bad = [legs[0]!, { ...legs[1]!, buyPriceX18: 11n * 10n ** 18n, sellPriceX18: 13n * 10n ** 18n }];
      expect(refusal(() => buildLadderStrategy({ ...open, legs: bad, market }))).toEqual({
        code: "WRONG_SIDE",
        details: { part: 2, priceUsd: 10, limitUsd: 11 },
      });
      // Sell-first: the sell line must be above the price now.
      expect(refusal(() => buildLadderStrategy({ ...open, sellFirst: true, legs: [{ ...legs[0]!, sellPriceX18: 95n * 10n ** 17n }], market }))).toEqual({
        code: "WRONG_SIDE",
        details: { part: 1, priceUsd: 10, limitUsd: 9.5 },
      });
    });
    it("the contract's own per-part refusals (a simulation revert) get the same details", () => {
      const params = buildLadderStrategy({ ...open, market }).params;
      const sellFirstParams = { ...params, sellFirst: true, unit: "token" };
      const spot = (10n * 10n ** 18n).toString();
      expect(ladderRevertDetails(`WRONG_SIDE 1 ${spot}`, params)).toEqual({ part: 2, priceUsd: 10, limitUsd: 8 });
      expect(ladderRevertDetails(`WRONG_SIDE 0 ${spot}`, sellFirstParams)).toMatchObject({ part: 1, priceUsd: 10 });
      expect(ladderRevertDetails("FIRST_TOO_SMALL 0 10000000", params)).toEqual({ part: 1, minimum: "10000000", unit: "USDG" });
      expect(ladderRevertDetails("FOLLOW_UP_TOO_SMALL 2 123", sellFirstParams)).toEqual({ part: 3, minimum: "123", unit: "token" });
      expect(ladderRevertDetails(`NO_TRIP_HEADROOM 0 ${9_090_000_000_000_000_001n}`, params)).toEqual({
        part: 1,
        priceUsd: 11,
        limitUsd: Number(9_090_000_000_000_000_001n) / 1e18,
      });
      for (const reason of ["NOT_LISTED", "PAUSED", "VAULT_FULL 1 2", "WRONG_SIDE x 1"]) expect(ladderRevertDetails(reason, params)).toBeUndefined();
    });
    it("FIRST_TOO_SMALL and FOLLOW_UP_TOO_SMALL name the part and the exact minimum", () => {
      expect(refusal(() => buildLadderStrategy({ ...open, legs: [{ ...legs[0]!, amount: 49_999_999n }, legs[1]!], market }))).toEqual({
        code: "FIRST_TOO_SMALL",
        details: { part: 1, minimum: "50000000", unit: "USDG" },
      });
      expect(refusal(() => buildLadderStrategy({ ...open, legs: [legs[0]!, { ...legs[1]!, amount: 24_999_999n }], market }))).toEqual({
        code: "FOLLOW_UP_TOO_SMALL",
        details: { part: 2, minimum: "25000000", unit: "USDG" },
      });
      // Sell-first, 18 decimals, sell line 11 USDG: 50 USDG is 50/11 tokens, rounded up.
      const minimum = (50_000_000n * 10n ** 12n * 10n ** 18n + 11n * 10n ** 18n - 1n) / (11n * 10n ** 18n);
      const sellFirst = [{ buyPriceX18: 9n * 10n ** 18n, sellPriceX18: 11n * 10n ** 18n, amount: minimum - 1n }];
      expect(refusal(() => buildLadderStrategy({ ...open, sellFirst: true, legs: sellFirst, market }))).toEqual({
        code: "FIRST_TOO_SMALL",
        details: { part: 1, minimum: minimum.toString(), unit: "token" },
      });
      expect(buildLadderStrategy({ ...open, sellFirst: true, legs: [{ ...sellFirst[0]!, amount: minimum }], market }).steps).toHaveLength(2);
    });
    it("NO_TRIP_HEADROOM gives the lowest sell line that passes", () => {
      // sell * 10_000 must exceed buy * (10_000 + 2 * 50): buy 9 needs a sell above 9.09.
      const bound = 9n * 10n ** 18n * 10_100n;
      const tight = [{ ...legs[0]!, sellPriceX18: bound / 10_000n }];
      expect(refusal(() => buildLadderStrategy({ ...open, legs: tight, market }))).toEqual({
        code: "NO_TRIP_HEADROOM",
        details: { part: 1, priceUsd: 9.09, limitUsd: Number(bound / 10_000n + 1n) / 1e18 },
      });
      expect(buildLadderStrategy({ ...open, legs: [{ ...legs[0]!, sellPriceX18: bound / 10_000n + 1n }], market }).steps).toHaveLength(2);
    });
  });
});

describe("buildSwap", () => {
  const swap = {
    owner: OWNER,
    router: ROUTER,
    tokenIn: WETH,
    tokenOut: TOKEN,
    amountIn: 10n ** 18n,
    minAmountOut: 123n,
    route: { to: AGG, data: "0xfeed" as const },
  };
  it("approve exactly amountIn to the router, then swap(req) with recipient = owner", () => {
    const b = buildSwap(swap);
    expect(b.kind).toBe("swap");
    expect(read(b)).toEqual([
      approve(WETH, ROUTER, 10n ** 18n),
      [
        ROUTER,
        "swapRouterAbi.swap",
        [{ tokenIn: WETH, tokenOut: TOKEN, amountIn: 10n ** 18n, minAmountOut: 123n, recipient: OWNER, aggregator: AGG, route: "0xfeed" }],
      ],
    ]);
  });
  it("refuses native ETH in, the same token twice, and an amount of 0", () => {
    const eth = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
    expect(refusal(() => buildSwap({ ...swap, tokenIn: eth })).code).toBe("NATIVE_ETH_IN");
    expect(buildSwap({ ...swap, tokenOut: eth }).steps).toHaveLength(2);
    expect(refusal(() => buildSwap({ ...swap, tokenOut: WETH.toLowerCase() as Address })).code).toBe("SAME_TOKEN");
    expect(refusal(() => buildSwap({ ...swap, amountIn: 0n })).code).toBe("AMOUNT_TOO_SMALL");
    expect(refusal(() => buildSwap({ ...swap, amountIn: maxUint256 + 1n })).code).toBe("INVALID_REQUEST");
  });
});

describe("baskets", () => {
  const legs = [
    { tokenIn: USDG, tokenOut: T1, amountIn: 600n, data: "0x01" as const },
    { tokenIn: USDG, tokenOut: T2, amountIn: 400n, data: "0x02" as const },
  ];
  it("buy: approve exactly amountIn of the paid token to the zap, then buy(..., recipient = owner, deadline)", () => {
    const b = buildBasketBuy({ owner: OWNER, zap: ZAP, pool: POOL, tokenIn: USDG, amountIn: 1000n, legs, minBptOut: 5n, deadline: 1_800_000_000n });
    expect(b.kind).toBe("basket-buy");
    expect(read(b)).toEqual([approve(USDG, ZAP, 1000n), [ZAP, "basketZapAbi.buy", [POOL, USDG, 1000n, legs, 5n, OWNER, 1_800_000_000n]]]);
    expect(b.params).toMatchObject({ side: "buy", pool: POOL, zap: ZAP, token: USDG, amount: "1000", minOut: "5", recipient: OWNER, deadline: 1_800_000_000 });
    expect(refusal(() => buildBasketBuy({ owner: OWNER, zap: ZAP, pool: POOL, tokenIn: USDG, amountIn: 999n, legs, minBptOut: 5n, deadline: 1n })).code).toBe(
      "INVALID_REQUEST",
    );
  });
  it("sell: approve exactly bptIn of the basket to the zap, then sell(..., recipient = owner, deadline)", () => {
    const sellLegs = [
      { tokenIn: T1, tokenOut: USDG, amountIn: 6n, data: "0x03" as const },
      { tokenIn: T2, tokenOut: USDG, amountIn: 4n, data: "0x04" as const },
    ];
    const b = buildBasketSell({ owner: OWNER, zap: ZAP, pool: POOL, bptIn: 10n ** 18n, tokenOut: USDG, legs: sellLegs, minOut: 7n, deadline: 1_800_000_000n });
    expect(b.kind).toBe("basket-sell");
    expect(read(b)).toEqual([approve(POOL, ZAP, 10n ** 18n), [ZAP, "basketZapAbi.sell", [POOL, 10n ** 18n, USDG, sellLegs, 7n, OWNER, 1_800_000_000n]]]);
  });
  it("a zap call over 32,000 bytes is ROUTE_TOO_LARGE", () => {
    const big = [{ ...legs[0]!, data: `0x${"ab".repeat(32_000)}` as const }];
    expect(
      refusal(() => buildBasketBuy({ owner: OWNER, zap: ZAP, pool: POOL, tokenIn: USDG, amountIn: 1000n, legs: big, minBptOut: 5n, deadline: 1n })).code,
    ).toBe("ROUTE_TOO_LARGE");
  });
  it("make: approve exactly the first deposit to the maker, then make(basket, ..., recipient = owner, deadline)", () => {
    const basket = {
      name: "Two",
      symbol: "TWO",
      tokens: [T1, T2],
      normalizedWeights: [6n * 10n ** 17n, 4n * 10n ** 17n],
      swapFeePercentage: 10n ** 16n,
      salt: `0x${"11".repeat(32)}` as const,
    };
    const b = buildBasketMake({ owner: OWNER, maker: STRATEGY, basket, tokenIn: USDG, amountIn: 1000n, legs, minBptOut: 1n, deadline: 1_800_000_000n });
    expect(b.kind).toBe("basket-make");
    expect(read(b)).toEqual([approve(USDG, STRATEGY, 1000n), [STRATEGY, "basketMakerAbi.make", [basket, USDG, 1000n, legs, 1n, OWNER, 1_800_000_000n]]]);
    const make = (over: Partial<typeof basket>) => () =>
      buildBasketMake({ owner: OWNER, maker: STRATEGY, basket: { ...basket, ...over }, tokenIn: USDG, amountIn: 1000n, legs, minBptOut: 1n, deadline: 1n });
    expect(refusal(make({ tokens: [T1], normalizedWeights: [10n ** 18n] })).code).toBe("TOKEN_COUNT");
    expect(refusal(make({ tokens: [T1, T1] })).code).toBe("DUPLICATE_TOKEN");
    expect(refusal(make({ tokens: [T2, T1] })).code).toBe("INVALID_REQUEST");
    expect(refusal(make({ normalizedWeights: [10n ** 18n - 10n ** 15n, 10n ** 15n] })).code).toBe("WEIGHT_TOO_SMALL");
    expect(refusal(make({ normalizedWeights: [6n * 10n ** 17n, 3n * 10n ** 17n] })).code).toBe("WEIGHTS_SUM");
    expect(refusal(make({ swapFeePercentage: 5n * 10n ** 15n })).code).toBe("MAKE_FEE");
  });
});
