// The faucet's rules apart from the chain (test/e2e/faucet.test.ts runs them on the devnet): a client's grants
// over a sliding window (what an end-to-end test cannot wait an hour for), and how a request is read into a grant.
import type { Address } from "viem";
import { describe, expect, it } from "vitest";
import type { Deployments } from "../../adapters/chain/deployments.js";
import { listedTokens } from "../../adapters/chain/token-list.js";
import { FAUCET_LIMITS, faucetAssets, grantLimiter, parseGrant } from "../../devnet/faucet.js";
import { devnetTokens } from "../../devnet/tokens.js";

describe("grantLimiter", () => {
  it("gives a client its grants a window, then says how long until the oldest leaves it; other clients are apart", () => {
    let now = 1_000_000;
    const limiter = grantLimiter({ grantsPerWindow: 3, windowMs: 60_000 }, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.take("ip:10.0.0.1")).toBeUndefined();
      now += 10_000;
    }
    expect(limiter.remaining("ip:10.0.0.1")).toBe(0);
    expect(limiter.take("ip:10.0.0.1")).toBe(30); // the first grant leaves the window at 1,060,000
    expect(limiter.take("ip:10.0.0.2")).toBeUndefined();
    now += 29_000;
    expect(limiter.take("ip:10.0.0.1")).toBe(1);
    now += 1_001;
    expect(limiter.take("ip:10.0.0.1")).toBeUndefined(); // a refused ask took nothing: one grant is free again
    expect(limiter.take("ip:10.0.0.1")).toBe(Math.ceil((1_010_000 + 60_000 - now) / 1000));
  });
});

describe("parseGrant", () => {
  const usdg = listedTokens().find((t) => t.symbol === "USDG")!;
  const d = {
    tokens: listedTokens().map((t) => ({
      ...t,
      decimals: t.symbol === "USDG" ? 6 : (devnetTokens.find((s) => s.symbol === t.symbol)?.decimals ?? 18),
      name: t.symbol,
      pool: null,
    })),
  } as unknown as Deployments;
  const assets = faucetAssets(d);
  const weth = listedTokens().find((t) => t.symbol === "WETH")!.address as Address;
  const wallet = "0x00000000000000000000000000000000000000aa";

  it("gives ETH and USDG by default, and a token by symbol or address at about 1,000 USDG's worth unless told", () => {
    const grant = parseGrant({ address: wallet, tokens: { [weth.toLowerCase()]: null } }, assets);
    expect("items" in grant && grant.items.map((i) => [i.asset.symbol, String(i.units)])).toEqual([
      ["ETH", String(10n ** 18n)],
      ["USDG", String(BigInt(FAUCET_LIMITS.defaultUsdg) * 10n ** 6n)],
      ["WETH", "333333000000000000"],
    ]);
    expect(assets.get("USDG")!.address).toBe(usdg.address);
  });

  it("caps each asset a request, to the base unit, and lists no unlisted token", () => {
    expect("items" in parseGrant({ address: wallet, usdg: FAUCET_LIMITS.maxUsdg }, assets)).toBe(true);
    expect(parseGrant({ address: wallet, usdg: "10000.000001" }, assets)).toMatchObject({ status: 400, details: { field: "usdg" } });
    expect(parseGrant({ address: wallet, tokens: { WBTC: "0.153847" } }, assets)).toMatchObject({ status: 400, details: { field: "tokens.WBTC" } });
    expect("items" in parseGrant({ address: wallet, tokens: { WBTC: "0.153846" } }, assets)).toBe(true);
    expect(parseGrant({ address: wallet, tokens: { WBTC: "0.000000001" } }, assets)).toMatchObject({ status: 400, error: "tokens.WBTC: WBTC has 8 decimals" });
    expect(parseGrant({ address: wallet, tokens: { usdg: "1" } }, assets)).toMatchObject({ status: 400, details: { field: "tokens.usdg" } });
    expect([...assets.keys()]).not.toContain("SCAM");
  });
});
