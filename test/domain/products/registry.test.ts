// Every registered product's kinds walked through what the service does with a bundle: the prepare route's
// row (body and refusals), the builder, the money-safety check, the sign page (every step in its product's
// words, the page titled by its product), the wallet-policy allow-list and the report card's grading. A
// kind or call added to a product without its words, title, grading rule or policy decision fails here. Over
// HTTP on the devnet, test/e2e/prepare-money-safety.test.ts and its -aggregator twin prepare every registered kind.
import fc from "fast-check";
import { toFunctionSelector, type AbiFunction } from "viem";
import { describe, expect, it } from "vitest";
import * as abis from "../../../abis/index.js";
import { renderSignPage } from "../../../api/sign-page/html.js";
import { prepareKindRegistry, prepareKinds } from "../../../contract/prepare-kinds.js";
import { agentActions, decodeStep, moneySafetyViolations } from "../../../domain/bundles/decode.js";
import { describeSteps, type DescribeNames } from "../../../domain/bundles/describe.js";
import { planAction, type ActionPlan } from "../../../domain/grading/rules.js";
import { allowRules } from "../../../domain/policies/allow-list.js";
import { bundleKinds, bundleRules, prepareKindRefusals, productCalls, products, type BundleKind } from "../../../domain/products/index.js";
import { resolvers } from "../../../usecases/prepare/resolvers.js";
import { anyRequest, build, ownerOf, randomAddress } from "../bundles/arbitraries.js";

/** What the report card makes of each bundle kind: the rules its plans may take (a new kind must be added here). */
const GRADED_AS = {
  "vault-deposit": ["deposit"],
  "up-vault-deposit": ["deposit"],
  "stock-vault-deposit": ["deposit"],
  "vault-cancel-deposit": ["not-graded:cancel"],
  "up-vault-cancel": ["not-graded:cancel"],
  "vault-withdraw": ["withdraw", "not-graded:in-kind"],
  "up-vault-withdraw": ["withdraw", "not-graded:in-kind"],
  "stock-vault-withdraw": ["withdraw", "not-graded:in-kind"],
  "vault-cancel-withdraw": ["not-graded:cancel"],
  "limit-order": ["order"],
  ladder: ["order"],
  "order-action": ["not-graded:order-action"],
  grid: ["range", "not-graded:grid-action"],
  "ladder-strategy": ["range", "not-graded:grid-action"],
  "account-agent-call": ["not-graded:account"],
  swap: ["not-graded:swap"],
  "basket-buy": ["not-graded:other"],
  "basket-sell": ["not-graded:other"],
  "basket-make": ["not-graded:other"],
} satisfies Record<BundleKind, readonly string[]>;

/** Calls the allow-list leaves to the sign link, as POLICY_NOTES says (a new call must be ruled or listed here). */
const SIGN_LINK_ONLY = new Set([
  "stockVaultRouterAbi.deposit",
  "upVaultAbi.redeemEmergencyInKind",
  "redeemQueueAbi.request",
  "swapRouterAbi.swap",
  "ladderStrategyAbi.open",
  "ladderStrategyAbi.close",
  "ladderStrategyAbi.setRepeat",
  "ladderStrategyAbi.collect",
  "agentAccountAbi.ladder",
  "basketMakerAbi.make",
]);

const planRule = (plan: ActionPlan) => (plan.rule === "not-graded" ? `not-graded:${plan.reason}` : plan.rule);
const selectorOf = (key: string) => {
  const [abi, name] = key.split(".") as [keyof typeof abis, string];
  return toFunctionSelector((abis[abi] as readonly AbiFunction[]).find((x) => x.type === "function" && x.name === name)!);
};

describe("the products' registry", () => {
  it("declares every prepare kind once, and the contract and the resolvers serve exactly those", () => {
    const declared = products.flatMap((p) => Object.keys(p.kinds));
    expect(new Set(declared).size, "a prepare kind declared by two products").toBe(declared.length);
    expect([...declared].sort()).toEqual([...prepareKinds].sort());
    expect(Object.keys(resolvers).sort()).toEqual([...prepareKinds].sort());
    for (const kind of prepareKinds) {
      expect(prepareKindRegistry[kind].refusals).toBe(prepareKindRefusals[kind].refusals);
      expect(prepareKindRegistry[kind].reverts).toBe(prepareKindRefusals[kind].reverts);
    }
  });

  it("gives every bundle kind to one product, with a title and a grading rule", () => {
    const declared = products.flatMap((p) => Object.keys(p.bundles));
    expect(new Set(declared).size, "a bundle kind declared by two products").toBe(declared.length);
    expect([...declared].sort()).toEqual([...bundleKinds].sort());
    for (const kind of bundleKinds) expect(bundleRules(kind)?.title, kind).toMatch(/^[A-Z]/);
  });

  it("declares every call once, and the money-safety check allows exactly ERC-20 approve and those", () => {
    const keys = productCalls.map(([key]) => key);
    expect(new Set(keys).size, "a call declared by two products").toBe(keys.length);
    expect(agentActions.map(([abi, name]) => `${abi}.${name}`).sort()).toEqual(["testTokenAbi.approve", ...keys].sort());
  });

  it("puts every call on the wallet-policy allow-list or leaves it, by name, to the sign link", () => {
    const a = fc.sample(randomAddress, { numRuns: 12, seed: 3 });
    const deployments = {
      contracts: { usdg: a[0], limitOrderHook: a[1], gridStrategy: a[2], basketZap: a[3], stockVaultRouter: a[4] },
      vaults: [
        { address: a[5]!, family: "merged" as const, agent: true, redeemQueue: a[6] },
        { address: a[7]!, family: "up" as const, agent: true, depositQueue: a[8], withdrawalQueue: a[9] },
        { address: a[10]!, family: "stock-token" as const, agent: true, router: a[4] },
      ],
    };
    const allowed = new Set(allowRules(deployments).flatMap((r) => r.functions.map((f) => f.selector)));
    for (const [key] of productCalls) expect(allowed.has(selectorOf(key)), `${key}: on the allow-list, or in SIGN_LINK_ONLY`).toBe(!SIGN_LINK_ONLY.has(key));
  });

  it("walks every kind's bundles through the money-safety check, the sign page and the grading", () => {
    const seen = new Map<string, Set<string>>();
    const names = (owner: `0x${string}`): DescribeNames => ({ owner, usdg: owner, tokens: {}, contracts: {} });
    fc.assert(
      fc.property(anyRequest, (request) => {
        const bundle = build(request);
        const owner = ownerOf(request);
        const product = products.find((p) => request.kind in p.kinds)!;
        expect(Object.keys(product.bundles), `${request.kind} answers a bundle kind of its own product`).toContain(bundle.kind);
        expect(moneySafetyViolations(bundle, owner, 4663)).toEqual([]);

        const steps = describeSteps(bundle.steps, names(owner));
        steps.forEach((s, i) => {
          const call = decodeStep(bundle.steps[i]!)!;
          expect(s.known, `step ${i + 1} of ${bundle.kind}`).toBe(true);
          // A call without words reads "Call fn(args) on ..." and is named by its function.
          expect(s.action, `${call.contractAbiName}.${call.functionName} has words`).not.toBe(call.functionName);
        });
        const now = new Date("2026-01-01T00:00:00Z");
        const page = renderSignPage({ id: "x", kind: bundle.kind, owner, createdAt: now, expiresAt: now, secondsLeft: 600, steps });
        expect(page).toContain(`<h1>${bundleRules(bundle.kind)!.title}</h1>`);

        const rule = planRule(planAction(bundle.kind, bundle.steps));
        expect(GRADED_AS[bundle.kind] as readonly string[], `${bundle.kind} graded as ${rule}`).toContain(rule);
        seen.set(bundle.kind, (seen.get(bundle.kind) ?? new Set()).add(rule));
      }),
      { numRuns: 600, seed: 11 },
    );
    // The run met every bundle kind and every way each is graded.
    for (const [kind, rules] of Object.entries(GRADED_AS)) expect([...(seen.get(kind) ?? [])].sort(), kind).toEqual([...rules].sort());
  });
});
