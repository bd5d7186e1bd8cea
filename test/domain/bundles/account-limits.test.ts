// accountLimitRefusal (the agent account's own limits, checked before a ladder-strategy open via account is
// answered) against the AgentAccount contract itself on an in-process devnet: for random limits and parts,
// the pure check refuses with ACCOUNT_<X> exactly when the account's LADDER call reverts with <X> (FLOOR,
// CEILING, BUDGET, FEE_CAP, SPREAD), and with the account's numbers in its details.
import fc from "fast-check";
import { type BaseError, createPublicClient, custom, decodeErrorResult, encodeFunctionData, type Abi, type Address, type Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { agentAccountAbi, agentAccountFactoryAbi, ladderStrategyAbi, marketRegistryAbi, testTokenAbi } from "../../../abis/index.js";
import { accountAddress, devnetChain } from "../../../devnet/chain.js";
import { deployStrategies, strategyParams, type StrategyDeployment } from "../../../devnet/deploy/strategies.js";
import { accountLimitRefusal, type AgentAccountLimits, type LadderStrategyLeg } from "../../../domain/bundles/index.js";
import { bootCore, type CoreFixture } from "../../helpers/devnet.js";

const OWNER = 6;
const AGENT = 7;
const ONE = 10n ** 18n;
let f: CoreFixture;
let s: StrategyDeployment;
let account: Address;
let client: ReturnType<typeof createPublicClient>;
let spot: bigint;
const token = () => f.core.tokens.find((t) => t.symbol === "WIF2")!.address;

beforeAll(async () => {
  f = await bootCore(["strategies"]);
  s = await deployStrategies(f.ctx, f.core);
  client = createPublicClient({ chain: devnetChain, transport: custom(f.chain.provider, { retryCount: 0 }) });
  const limits = { floorX18: 0n, ceilingX18: 0n, budgetUsdg: 0n, feeCapBps: 0, minSpreadBps: 0 };
  await f.ctx.send(s.agentAccountFactory, agentAccountFactoryAbi, "create", [accountAddress(AGENT), limits], accountAddress(OWNER));
  account = await client.readContract({
    address: s.agentAccountFactory,
    abi: agentAccountFactoryAbi,
    functionName: "accountOf",
    args: [accountAddress(OWNER)],
  });
  // Enough of both sides that an open within the limits never fails for want of funds.
  await f.ctx.send(f.core.usdg, testTokenAbi, "mint", [account, 10n ** 15n]);
  await f.ctx.send(token(), testTokenAbi, "mint", [account, 10n ** 30n]);
  spot = await client.readContract({ address: f.core.markets, abi: marketRegistryAbi, functionName: "priceX18", args: [token()] });
}, 120_000);

/** The reason the account's LADDER call reverts with (a require string or a custom error's name), or undefined. */
async function revertOf(data: Hex): Promise<string | undefined> {
  try {
    await client.simulateContract({ address: account, abi: agentAccountAbi, functionName: "ladder", args: [data], account: accountAddress(AGENT) });
    return undefined;
  } catch (err) {
    let found: Hex | undefined;
    (err as BaseError).walk?.((e) => {
      const d = (e as { data?: unknown }).data;
      if (typeof d === "string" && d.startsWith("0x") && d.length >= 10) found = d as Hex;
      else if (d && typeof d === "object" && typeof (d as { data?: unknown }).data === "string") found = (d as { data: Hex }).data;
      return false;
    });
    if (!found) throw err;
    const decoded = decodeErrorResult({ abi: [...agentAccountAbi, ...ladderStrategyAbi] as Abi, data: found });
    return decoded.errorName === "Error" ? String(decoded.args?.[0]) : decoded.errorName;
  }
}

const ACCOUNT_REVERTS = ["FLOOR", "CEILING", "BUDGET", "FEE_CAP", "SPREAD"];

describe("accountLimitRefusal, against the AgentAccount contract", () => {
  it("refuses with ACCOUNT_<X> exactly when the account's LADDER call reverts with <X>", async () => {
    const seen = new Set<string>();
    // Prices as fractions of the price now (per mille), so that the parts sit around the account's lines.
    const permille = (min: number, max: number) => fc.integer({ min, max }).map((p) => (spot * BigInt(p)) / 1000n);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          floorX18: fc.oneof(fc.constant(0n), permille(300, 900)),
          ceilingX18: fc.oneof(fc.constant(0n), permille(800, 2500)),
          budgetUsdg: fc.bigInt({ min: 0n, max: 400_000_000n }),
          feeCapBps: fc.oneof(fc.constant(strategyParams.ladder.feeBps), fc.integer({ min: 0, max: 100 })),
          minSpreadBps: fc.integer({ min: 0, max: 3000 }),
        }),
        fc.boolean(),
        fc.array(
          fc.record({
            buy: fc.integer({ min: 300, max: 990 }),
            spreadBps: fc.integer({ min: 100, max: 4000 }),
            usdg: fc.bigInt({ min: 10_000_000n, max: 60_000_000n }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        async (limits, sellFirst, parts) => {
          await f.ctx.send(account, agentAccountAbi, "setLimits", [limits], accountAddress(OWNER));
          const legs: LadderStrategyLeg[] = parts.map((p) => {
            // Buy-first parts under the price now; sell-first parts' sell lines over it.
            const buyPriceX18 = sellFirst ? (spot * BigInt(1000 + p.buy)) / 1000n : (spot * BigInt(p.buy)) / 1000n;
            const sellPriceX18 = (buyPriceX18 * BigInt(10_000 + p.spreadBps)) / 10_000n;
            const amount = sellFirst ? (p.usdg * 10n ** 12n * ONE) / sellPriceX18 + 1n : p.usdg;
            return { buyPriceX18: sellFirst ? buyPriceX18 / 2n : buyPriceX18, sellPriceX18, amount };
          });
          const committedUsdg = await client.readContract({ address: account, abi: agentAccountAbi, functionName: "committedUsdg" });
          const numbers: AgentAccountLimits = { ...limits, committedUsdg, feeBps: strategyParams.ladder.feeBps, decimals: 18 };
          const refusal = accountLimitRefusal(legs, sellFirst, numbers);
          const data = encodeFunctionData({ abi: ladderStrategyAbi, functionName: "open", args: [token(), legs, sellFirst, false, false] });
          const reverted = await revertOf(data);
          seen.add(refusal?.code ?? `through: ${reverted ?? "ok"}`);
          if (refusal) expect(reverted).toBe(refusal.code.replace(/^ACCOUNT_/, ""));
          else expect(ACCOUNT_REVERTS).not.toContain(reverted);
        },
      ),
      { numRuns: 250 },
    );
    // Every refusal and a pass were met.
    for (const code of ["ACCOUNT_FLOOR", "ACCOUNT_CEILING", "ACCOUNT_BUDGET", "ACCOUNT_FEE_CAP", "ACCOUNT_SPREAD"]) expect(seen).toContain(code);
    expect([...seen].some((x) => x.startsWith("through"))).toBe(true);
  }, 120_000);

  it("names the part and the account's numbers", () => {
    const base: AgentAccountLimits = {
      floorX18: 2n * ONE,
      ceilingX18: 4n * ONE,
      budgetUsdg: 100_000_000n,
      feeCapBps: 50,
      minSpreadBps: 500,
      committedUsdg: 30_000_000n,
      feeBps: 30,
      decimals: 18,
    };
    const leg = (buy: bigint, sell: bigint, amount = 20_000_000n) => ({ buyPriceX18: buy, sellPriceX18: sell, amount });
    const ok = leg((25n * ONE) / 10n, 3n * ONE);
    expect(accountLimitRefusal([ok], false, base)).toBeUndefined();
    expect(accountLimitRefusal([ok, leg(ONE, 3n * ONE)], false, base)).toMatchObject({ code: "ACCOUNT_FLOOR", details: { part: 2, priceUsd: 1, limitUsd: 2 } });
    expect(accountLimitRefusal([ok], false, { ...base, ceilingX18: 0n })).toMatchObject({ code: "ACCOUNT_CEILING", details: { limitUsd: 0 } });
    expect(accountLimitRefusal([leg(3n * ONE, 5n * ONE)], false, base)).toMatchObject({
      code: "ACCOUNT_CEILING",
      details: { part: 1, priceUsd: 5, limitUsd: 4 },
    });
    // 70 USDG left of 100: 71 is refused, 70 passes; a sell-first part counts its tokens at its sell line.
    expect(accountLimitRefusal([leg((25n * ONE) / 10n, 3n * ONE, 71_000_000n)], false, base)).toMatchObject({
      code: "ACCOUNT_BUDGET",
      details: { minimum: "71000000", unit: "USDG", limitUsd: 70 },
    });
    expect(accountLimitRefusal([leg((25n * ONE) / 10n, 3n * ONE, 70_000_000n)], false, base)).toBeUndefined();
    expect(accountLimitRefusal([leg((25n * ONE) / 10n, 3n * ONE, 24n * ONE)], true, base)).toMatchObject({
      code: "ACCOUNT_BUDGET",
      details: { minimum: "72000000" },
    });
    expect(accountLimitRefusal([ok], false, { ...base, feeCapBps: 29 })?.code).toBe("ACCOUNT_FEE_CAP");
    // 5% over the buy line at least: 2.625 for a buy at 2.5.
    expect(accountLimitRefusal([leg((25n * ONE) / 10n, (2624n * ONE) / 1000n)], false, base)).toMatchObject({
      code: "ACCOUNT_SPREAD",
      details: { part: 1, priceUsd: 2.624, limitUsd: 2.625 },
    });
    expect(accountLimitRefusal([leg((25n * ONE) / 10n, (2625n * ONE) / 1000n)], false, base)).toBeUndefined();
  });
});
