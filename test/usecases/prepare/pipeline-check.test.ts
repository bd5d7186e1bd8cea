// The pipeline's run-time money-safety check with faulty builders injected: runPrepare refuses a bundle
// whose spender (and pulling step) is a contract the deployments do not list, with 500 INTERNAL and the
// violations logged, before anything is simulated or stored; checkPrepared holds the deadline window.
import { encodeFunctionData, getAddress, type Address } from "viem";
import { devAggregatorAbi } from "../../../abis/index.js";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Deployments } from "../../../adapters/chain/deployments.js";
import { allowListOf, buildBasketBuy, buildGrid, buildLadderStrategy } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";
import type { Logger } from "../../../adapters/logger.js";
import type { PrepareContext, Resolved } from "../../../usecases/prepare/types.js";

const a = (n: number) => getAddress(`0x${n.toString(16).padStart(40, "0")}`);
const owner = a(0x1001);
const usdg = a(0x2001);
const weth = a(0x2002);
const grid = a(0x3001);
const ladder = a(0x3002);
const zap = a(0x3003);
const basket = a(0x4001);
const foreign = a(0xbad);

/** What the mocked grid resolver builds with: the real builder, and a strategy address the test picks. */
const faulty = { strategy: grid as Address };
vi.mock("../../../usecases/prepare/resolve/grid.js", () => ({
  resolveGrid: async (_ctx: unknown, _body: unknown, who: Address): Promise<Resolved> => ({
    bundle: buildGrid({
      owner: who,
      strategy: faulty.strategy,
      action: "open",
      usdg,
      token: weth,
      buyPriceX18: 10n ** 18n,
      sellPriceX18: 2n * 10n ** 18n,
      amountUsdg: 5_000_000n,
      repeat: true,
    }),
  }),
}));
const { checkPrepared, runPrepare } = await import("../../../usecases/prepare/pipeline.js");

const deployments: Deployments = {
  chainId: 4663,
  startBlock: 0,
  contracts: { usdg, weth, gridStrategy: grid, ladderStrategy: ladder, basketZap: zap },
  tokens: [{ symbol: "WETH", name: "WETH", address: weth, decimals: 18, category: "crypto", pool: null }],
  vaults: [],
  baskets: [{ address: basket, name: "B", symbol: "B", listed: true, sellOnly: false }],
};
const errors: { fields: Record<string, unknown>; message?: string }[] = [];
const noop = () => {};
const logger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  fatal: noop,
  error: (fields: Record<string, unknown>, message?: string) => errors.push({ fields, message }),
  child: () => logger,
  isLevelEnabled: () => true,
} as Logger;
const NOW = new Date("2026-01-01T00:00:00Z");
const nowSeconds = BigInt(NOW.getTime() / 1000);
/** Nothing past the check is reachable: any use of the chain or the databases fails the test. */
const unreachable = new Proxy(
  {},
  {
    get: () => {
      throw new Error("touched the chain or a database before the check refused");
    },
  },
);
const ctx = {
  deployments,
  allowList: allowListOf(deployments),
  simulator: unreachable,
  logger,
  now: () => NOW,
  baseUrl: "http://127.0.0.1",
  client: unreachable,
  db: unreachable,
  reads: unreachable,
} as unknown as PrepareContext;

beforeEach(() => {
  errors.length = 0;
  faulty.strategy = grid;
});

describe("the pipeline refuses a faulty builder's bundle", () => {
  it("a grid open approving and calling a foreign strategy: 500 INTERNAL, violations logged, nothing simulated", async () => {
    faulty.strategy = foreign;
    const error = await runPrepare(ctx, "grid", { owner, action: "open" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("INTERNAL");
    expect(errors).toHaveLength(1);
    const violations = errors[0]!.fields.violations as string[];
    expect(violations).toContain(`step 1 (testTokenAbi.approve): the spender ${foreign} is not a service contract that a later step of the bundle pulls with`);
    expect(violations.some((v) => v.startsWith("step 2 ") && v.includes(`to ${foreign} is not a contract of the service`))).toBe(true);
  });

  it("the same builder with the deployments' strategy passes the check (and goes on to the chain)", async () => {
    const error = await runPrepare(ctx, "grid", { owner, action: "open" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("touched the chain"); // past the check: the simulation
    expect(errors).toEqual([]);
  });
});

describe("checkPrepared", () => {
  const basketBuy = (deadline: bigint) =>
    buildBasketBuy({
      owner,
      zap,
      pool: basket,
      tokenIn: usdg,
      amountIn: 100n,
      legs: [{ tokenIn: usdg, tokenOut: weth, amountIn: 100n, data: "0x" }],
      minBptOut: 1n,
      deadline,
    });

  it("takes a basket buy whose deadline is 10 minutes ahead, and refuses one a second later or in the past", () => {
    expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle: basketBuy(nowSeconds + 600n) })).not.toThrow();
    for (const deadline of [nowSeconds + 601n, nowSeconds]) {
      errors.length = 0;
      expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle: basketBuy(deadline) })).toThrow(ApiError);
      expect((errors[0]!.fields.violations as string[]).some((v) => v.includes("deadline"))).toBe(true);
    }
  });

  it("starts the deadline window at the chain time the resolver read when the chain is ahead", () => {
    const chainTime = nowSeconds + 86_400n;
    expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle: basketBuy(chainTime + 600n), chainTime })).not.toThrow();
    expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle: basketBuy(chainTime + 601n), chainTime })).toThrow(ApiError);
  });

  it("a token the request resolved (not in the deployments) is allowed only when the resolver names it", () => {
    const unlisted = a(0x5001);
    const bundle = buildBasketBuy({
      owner,
      zap,
      pool: basket,
      tokenIn: usdg,
      amountIn: 100n,
      legs: [{ tokenIn: usdg, tokenOut: unlisted, amountIn: 100n, data: "0x" }],
      minBptOut: 1n,
      deadline: nowSeconds + 60n,
    });
    expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle })).toThrow(ApiError);
    expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle, allow: { tokens: [unlisted] } })).not.toThrow();
  });

  it("an agent account's call is allowed only when the resolver names the account", () => {
    const account = a(0x6001);
    const bundle = buildLadderStrategy({ owner, ladder, action: "close", via: "account", account, id: 1n, mask: 3 });
    expect(() => checkPrepared(ctx, "ladder-strategy", owner, { bundle })).toThrow(ApiError);
    expect(() => checkPrepared(ctx, "ladder-strategy", owner, { bundle, allow: { contracts: [account] } })).not.toThrow();
  });
});

describe("checkPrepared holds the figures the answer shows (issue 32: the server refuses what its client would)", () => {
  const buy = (amountIn: bigint, minBptOut: bigint, legData: `0x${string}` = "0x") =>
    buildBasketBuy({
      owner,
      zap,
      pool: basket,
      tokenIn: usdg,
      amountIn,
      legs: [{ tokenIn: usdg, tokenOut: weth, amountIn, data: legData }],
      minBptOut,
      deadline: nowSeconds + 300n,
    });
  const figures = { amount: 1_000n, minimumOut: 990n };
  const refused = (resolved: Resolved) => {
    errors.length = 0;
    expect(() => checkPrepared(ctx, "basket-buy", owner, resolved)).toThrow(ApiError);
    return errors[0]!.fields.violations as string[];
  };

  it("takes the bundle of the amount asked with its minimum at the quote's floor", () => {
    expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle: buy(1_000n, 990n), figures })).not.toThrow();
    expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle: buy(1_000n, 995n), figures })).not.toThrow();
  });

  it("refuses a minimum under the floor, another amount, and a floor the bundle does not carry", () => {
    expect(refused({ bundle: buy(1_000n, 989n), figures }).some((v) => v.includes("minBptOut is 989, below 990"))).toBe(true);
    expect(refused({ bundle: buy(1_001n, 990n), figures }).some((v) => v.includes("not the amount asked for, 1000"))).toBe(true);
    expect(refused({ bundle: buy(1_000n, 990n), figures: { minimumOut: [990n, 5n] } }).some((v) => v.includes("carries 1 minimum output(s)"))).toBe(true);
  });

  it("refuses a leg whose aggregator call accepts any price (a zero minimum inside the leg)", () => {
    const leg = (minOut: bigint) => encodeFunctionData({ abi: devAggregatorAbi, functionName: "swap", args: [usdg, weth, 1_000n, minOut, zap] });
    expect(() => checkPrepared(ctx, "basket-buy", owner, { bundle: buy(1_000n, 990n, leg(5n)), figures })).not.toThrow();
    expect(refused({ bundle: buy(1_000n, 990n, leg(0n)), figures }).some((v) => v.includes("legs[0].data.minOut is 0"))).toBe(true);
  });
});
