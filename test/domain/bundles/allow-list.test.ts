// The allow-list rules of the money-safety check (decode.ts rules 7-9) on REAL builder outputs: every
// bundle passes with the request's own contracts and tokens, and each twin with any one `to` or any one
// address argument (whatever its name, at any depth) set to a stranger is refused.
import fc from "fast-check";
import { encodeFunctionData, getAddress, type Address } from "viem";
import { describe, expect, it } from "vitest";
import { testTokenAbi } from "../../../abis/index.js";
import {
  allowListOf,
  approvedSpender,
  bundleKinds,
  moneySafetyViolations,
  walletSendCalls,
  walletSendCallsViolations,
  type AllowList,
  type Bundle,
  type CheckedStep,
} from "../../../domain/bundles/index.js";
import { anyRequest, build, checkBuiltRequests, ownerOf, randomAddress, usdgOf, type Request } from "./arbitraries.js";
import { addressCount, reencode, withAddress } from "./mutate.js";

/** Parameters that name a service contract, and those that name a token (vaults are both). */
const CONTRACT_KEYS = new Set([
  "vault",
  "depositQueue",
  "router",
  "aggregator",
  "redeemQueue",
  "withdrawalQueue",
  "hook",
  "strategy",
  "ladder",
  "account",
  "zap",
  "maker",
  "usdg",
  "to",
]);
const TOKEN_KEYS = new Set(["usdg", "token", "tokenIn", "tokenOut", "pool", "vault", "tokens"]);

/** The allow-list a request's own addresses make (as the pipeline's deployments and resolver would). */
function allowOf(request: Request): AllowList {
  const contracts: string[] = [];
  const tokens: string[] = [];
  const visit = (key: string, value: unknown) => {
    if (typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value)) {
      if (CONTRACT_KEYS.has(key)) contracts.push(value);
      if (TOKEN_KEYS.has(key)) tokens.push(value);
    } else if (Array.isArray(value)) value.forEach((v) => visit(key, v));
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) visit(k, v);
  };
  visit("", request.p);
  return allowListOf({ contracts: {}, tokens: [], vaults: [] }, { contracts, tokens });
}

const allowed = (allow: AllowList, a: string) => allow.contracts.has(a.toLowerCase()) || allow.tokens.has(a.toLowerCase());
/** A property over a random request and a stranger (an address neither allowed nor the owner): its owner, allow-list and bundle. */
const withStranger = (check: (c: { stranger: Address; owner: Address; allow: AllowList; bundle: Bundle }) => void) =>
  fc.property(anyRequest, randomAddress, (request, stranger) => {
    const owner = ownerOf(request);
    const allow = allowOf(request);
    fc.pre(!allowed(allow, stranger) && stranger !== owner);
    check({ stranger, owner, allow, bundle: build(request) });
  });

describe("the allow-list rules on real bundles (property)", () => {
  it("every bundle of every kind passes with its request's contracts and tokens, steps and wallet calls alike", () => {
    const kinds = checkBuiltRequests(1_000, (request, owner, bundle) => {
      const allow = allowOf(request);
      expect(moneySafetyViolations(bundle, owner, 4663, { allow, usdg: usdgOf(request.p) })).toEqual([]);
      expect(walletSendCallsViolations(walletSendCalls(bundle, owner), owner, { allow, usdg: usdgOf(request.p) })).toEqual([]);
    });
    expect([...kinds].sort()).toEqual([...bundleKinds].sort());
  }, 60_000);

  it("refuses each twin with any one step's `to` set to a stranger, for every step in turn", () => {
    fc.assert(
      withStranger(({ stranger, owner, allow, bundle }) => {
        bundle.steps.forEach((_, i) => {
          const steps: CheckedStep[] = [...bundle.steps];
          steps[i] = { ...steps[i]!, to: stranger };
          const violations = moneySafetyViolations({ steps }, owner, 4663, { allow });
          expect(
            violations.some((v) => v.startsWith(`step ${i + 1} `) && v.includes(`to ${stranger} is not`)),
            violations.join("\n"),
          ).toBe(true);
        });
      }),
      { numRuns: 400 },
    );
  }, 60_000);

  it("refuses each twin with any one address argument (any name, any depth, inner calls too) set to a stranger, for every argument in turn", () => {
    let mutated = 0;
    fc.assert(
      withStranger(({ stranger, owner, allow, bundle }) => {
        bundle.steps.forEach((step, i) => {
          for (let k = 0; k < addressCount(step); k++) {
            const steps: CheckedStep[] = [...bundle.steps];
            steps[i] = withAddress(step, k, stranger);
            mutated++;
            const violations = moneySafetyViolations({ steps }, owner, 4663, { allow });
            expect(
              violations.some((v) => v.startsWith(`step ${i + 1} `) && v.includes(stranger)),
              `step ${i + 1} argument ${k}: ${violations.join("\n")}`,
            ).toBe(true);
            // The same twin as the wallet would be asked to send it.
            const calls = walletSendCalls({ ...bundle, steps: steps.map((s) => ({ ...s, value: 0n as const })) }, owner);
            expect(walletSendCallsViolations(calls, owner, { allow }).length).toBeGreaterThan(0);
          }
        });
      }),
      { numRuns: 400 },
    );
    expect(mutated).toBeGreaterThan(1_000);
  }, 120_000);

  it("refuses an approval and its pulling step both moved to a stranger (consistent, so rule 5 alone passes it)", () => {
    fc.assert(
      withStranger(({ stranger, owner, allow, bundle }) => {
        const i = bundle.steps.findIndex((s) => approvedSpender(s) !== undefined);
        fc.pre(i >= 0);
        const spender = approvedSpender(bundle.steps[i]!)!;
        const steps: CheckedStep[] = bundle.steps.map((s, j) =>
          j === i ? reencode(s, ([, amount]) => [stranger, amount]) : getAddress(s.to) === getAddress(spender) && j > i ? { ...s, to: stranger } : s,
        );
        expect(moneySafetyViolations({ steps }, owner, 4663)).toEqual([]); // the old rules cannot see it
        const violations = moneySafetyViolations({ steps }, owner, 4663, { allow });
        expect(violations.some((v) => v.includes(`the spender ${stranger} is not a service contract`))).toBe(true);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});

describe("the allow-list rules (examples)", () => {
  const owner = getAddress("0x1111111111111111111111111111111111111111");
  const usdg = getAddress("0x2222222222222222222222222222222222222222");
  const hook = getAddress("0x3333333333333333333333333333333333333333");
  const grid = getAddress("0x4444444444444444444444444444444444444444");
  const allow = allowListOf({ contracts: { usdg, limitOrderHook: hook, gridStrategy: grid }, tokens: [], vaults: [] });
  const approve = (spender: Address): CheckedStep => ({
    to: usdg,
    data: encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [spender, 5n] }),
    value: 0n,
  });

  it("refuses an approval to a service contract that no later step pulls with", () => {
    const violations = moneySafetyViolations({ steps: [approve(grid)] }, owner, 4663, { allow });
    expect(violations.some((v) => v.includes(`the spender ${grid} is not a service contract that a later step`))).toBe(true);
  });

  it("refuses an approve sent to an address that is neither a token nor a contract", () => {
    const stranger = getAddress("0x5555555555555555555555555555555555555555");
    const violations = moneySafetyViolations({ steps: [{ ...approve(hook), to: stranger }] }, owner, 4663, { allow });
    expect(violations).toContain(`step 1 (testTokenAbi.approve): to ${stranger} is not a token or contract of the service`);
  });

  it("allowListOf takes vaults with their queues and routers as contracts, vault shares and baskets as tokens", () => {
    const vault = "0x6666666666666666666666666666666666666666";
    const queue = "0x7777777777777777777777777777777777777777";
    const basket = "0x8888888888888888888888888888888888888888";
    const list = allowListOf({
      contracts: { usdg },
      tokens: [],
      vaults: [{ address: vault, withdrawalQueue: queue, router: null }],
      baskets: [{ address: basket }],
    });
    expect([...list.contracts].sort()).toEqual([usdg.toLowerCase(), vault, queue].sort());
    expect(list.tokens.has(vault) && list.tokens.has(basket) && !list.tokens.has(queue)).toBe(true);
  });
});
