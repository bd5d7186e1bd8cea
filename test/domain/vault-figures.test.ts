// Known answers of the pure pieces behind the read routes: vault status and room, APR from harvest
// snapshots, share price, gap-filled candles, and the cached chain-state reader.
import { createPublicClient, custom, encodeAbiParameters, maxUint256 } from "viem";
import { describe, expect, it } from "vitest";
import { serviceChainStateReader } from "../../adapters/chain/service-state.js";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { fillCandles, type CandleIn } from "../../domain/candles.js";
import { aprFromSnapshots, convertToAssets, sharePrice, vaultRoom, vaultStatus, vaultTotalAssets, withdrawalModes } from "../../domain/vault-figures.js";

const USDG = 10n ** 6n;
const vault = (over: Partial<Parameters<typeof vaultStatus>[0]> = {}) => ({
  status: "open",
  reason: "Accepting deposits",
  depositCap: 1000n * USDG,
  totalAssets: 400n * USDG,
  pendingAssets: 100n * USDG,
  ...over,
});

describe("vault status and room", () => {
  it("keeps the vault's own status and reason below the cap", () => {
    expect(vaultStatus(vault())).toEqual({ status: "open", reason: "Accepting deposits" });
    expect(vaultRoom(vault())).toBe(500n * USDG);
  });

  it("is full once total assets and queued deposits reach the cap, with room 0", () => {
    const atCap = vault({ totalAssets: 900n * USDG });
    expect(vaultStatus(atCap)).toEqual({ status: "full", reason: "Deposit cap reached; withdrawals stay open" });
    expect(vaultRoom(atCap)).toBe(0n);
  });

  it("gives closed and paused vaults no room, and an open uncapped vault null", () => {
    expect(vaultRoom(vault({ status: "paused", reason: "x" }))).toBe(0n);
    expect(vaultStatus(vault({ status: "closed", reason: "" })).reason).toBe("Closed to new deposits; withdrawals stay open");
    expect(vaultRoom(vault({ depositCap: maxUint256 }))).toBeNull();
  });

  it("names the withdrawal modes by family", () => {
    expect(withdrawalModes("merged", true)).toEqual(["usdg", "in-kind", "queue"]);
    expect(withdrawalModes("merged", false)).toEqual(["usdg", "in-kind"]);
    expect(withdrawalModes("up", false)).toEqual(["queue", "in-kind"]);
    expect(withdrawalModes("stock-token", false)).toEqual(["usdg", "in-kind"]);
  });
});

describe("aprFromSnapshots", () => {
  it("annualises net income after the first snapshot over the average assets", () => {
    // 1,000 USDG; 1 USDG gross (0.1 fee) a day for 2 days: 0.9/1000 a day = 32.85% a year.
    const s = [0, 1, 2].map((day) => ({ timestamp: day * 86400, totalAssets: 1000n * USDG, gross: 1n * USDG, fee: USDG / 10n }));
    expect(aprFromSnapshots(s)).toEqual({ aprPct: 32.85, days: 2 });
  });

  it("is null with fewer than two snapshots or no time between them", () => {
    expect(aprFromSnapshots([]).aprPct).toBeNull();
    expect(aprFromSnapshots([{ timestamp: 5, totalAssets: 1n, gross: 1n, fee: 0n }]).aprPct).toBeNull();
  });
});

describe("sharePrice", () => {
  it("is the vault's convertToAssets of one whole share, with its virtual shares", () => {
    // Pair vault: 1e12 × (1_500_000 + 1) / (1e12 + 1e6), rounded down, in USDG.
    expect(sharePrice({ family: "merged", totalAssets: 1_500_000n, totalSupply: 10n ** 12n }, 6)).toBe(1.499999);
    // ERC4626 without offset: 1e18 × (2e18 + 1) / (1e18 + 1).
    expect(sharePrice({ family: "stock-token", totalAssets: 2n * 10n ** 18n, totalSupply: 10n ** 18n }, 18)).toBe(2);
    expect(sharePrice({ family: "up", totalAssets: 1n, totalSupply: 0n }, 6)).toBeNull();
  });
});

describe("vault books", () => {
  const books = { family: "merged", usdgAssets: 1_000n * USDG, tokenAssets: 5n * 10n ** 17n, totalAssets: 0n };

  it("values a pair vault's token at the price given, rounding as PriceMath.toUsdg", () => {
    // 0.5 token (18 decimals) at 2,000.0000015 USDG: 1,000.00000075 USDG, rounded down to base units.
    expect(vaultTotalAssets(books, { decimals: 18, priceX18: 2_000_000_001_500_000_000_000n })).toBe(2_000n * USDG);
    expect(vaultTotalAssets(books, { decimals: 18, priceX18: 3_000n * 10n ** 18n })).toBe(2_500n * USDG);
    // No market price: the token counts 0, as markets.priceX18 answers 0.
    expect(vaultTotalAssets(books, { decimals: null, priceX18: null })).toBe(1_000n * USDG);
    // A stock-token vault's assets are the stock it holds, whatever the price.
    expect(vaultTotalAssets({ ...books, family: "stock-token", totalAssets: 7n }, { decimals: 18, priceX18: 10n ** 18n })).toBe(7n);
  });

  it("converts shares as the vault does, rounded down", () => {
    expect(convertToAssets(10n ** 12n, { family: "up", totalAssets: 0n, totalSupply: 0n })).toBe(1_000_000n); // 1 share is 1 USDG at the start
    expect(convertToAssets(3n, { family: "stock-token", totalAssets: 10n, totalSupply: 2n })).toBe(11n); // 3 × 11 / 3
  });
});

describe("fillCandles", () => {
  const c = (start: number, close: bigint): CandleIn => ({ start, open: close - 1n, high: close + 1n, low: close - 2n, close, volumeUsdg: 5n, trades: 2 });

  it("carries the previous close through buckets with no trade", () => {
    const out = fillCandles([c(600, 10n), c(1800, 20n)], { from: 0, to: 2400, step: 600, carryIn: c(-600, 7n) });
    expect(out.map((x) => [x.start, x.open, x.close, x.trades])).toEqual([
      [0, 7n, 7n, 0],
      [600, 9n, 10n, 2],
      [1200, 10n, 10n, 0],
      [1800, 19n, 20n, 2],
      [2400, 20n, 20n, 0],
    ]);
  });

  it("starts at the first candle without an earlier close", () => {
    expect(fillCandles([c(1200, 3n)], { from: 0, to: 1800, step: 600 }).map((x) => x.start)).toEqual([1200, 1800]);
  });
});

describe("serviceChainStateReader", () => {
  const deployments = {
    chainId: 4663,
    startBlock: 0,
    contracts: { limitOrderHook: "0x0000000000000000000000000000000000000001" },
    tokens: [],
    vaults: [],
    baskets: [],
  } as unknown as Deployments;

  it("reads once per 10 seconds, and keeps the last good state when the RPC fails", async () => {
    let calls = 0;
    let down = false;
    const client = createPublicClient({
      transport: custom({
        async request({ method, params }: { method: string; params: [{ data: string }] }) {
          if (method !== "eth_call") throw new Error(`unexpected ${method}`);
          calls++;
          if (down) throw new Error("connection refused");
          // feeBps() -> 20, paused() -> false
          const feeBps = params[0].data.startsWith("0x24a9d853");
          return feeBps ? encodeAbiParameters([{ type: "uint16" }], [20]) : encodeAbiParameters([{ type: "bool" }], [false]);
        },
      }),
    });
    let now = 0;
    const read = serviceChainStateReader(client, deployments, { now: () => now });
    const first = await read();
    expect(first.ok && first.state.limitOrderHook).toEqual({ address: "0x0000000000000000000000000000000000000001", feeBps: 20, paused: false });
    const used = calls;
    now = 9_999;
    await read();
    expect(calls).toBe(used);
    now = 10_000;
    down = true;
    const failed = await read();
    expect(failed).toMatchObject({ ok: false, error: "the chain RPC is unreachable" });
    expect(!failed.ok && failed.lastGood?.limitOrderHook?.feeBps).toBe(20);
  });

  it("fails with a reason when no client is configured", async () => {
    expect(await serviceChainStateReader(undefined, deployments)()).toEqual({ ok: false, error: "no chain RPC is configured", lastGood: null });
  });
});
