// The wallet policy documents checked against real bundles with a small evaluator of each provider's
// language (test/helpers/policy-eval.ts): every step of every bundle kind the builders make on the
// spec's allow-list is allowed by both documents with the wallet filled in; the two steps the spec leaves
// to the sign link (stock-token deposit, up in-kind exit) and the kinds the allow-list does not name are
// denied; and for every allowed step, a twin with another receiver / recipient / spender, a non-zero
// value or another chain is denied.
import fc from "fast-check";
import { encodeFunctionData, getAddress, type AbiFunction, type Address, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { decodeStep, type Bundle } from "../../../domain/bundles/index.js";
import { privyPolicyDocument, turnkeyPolicyDocument, WALLET_PLACEHOLDER, type PolicyDeployments } from "../../../domain/policies/index.js";
import { privyAllows, turnkeyAllows, type Tx } from "../../helpers/policy-eval.js";
import { anyRequest, build, randomAddress, type Request } from "../bundles/arbitraries.js";

const A = fc.sample(randomAddress, { numRuns: 40, seed: 7 });
const [usdg, hook, grid, zap, stockRouter, swapRouter, ladderStrategy, basketMaker, aggregator, wallet, other] = A.slice(0, 11) as [
  Address,
  Address,
  Address,
  Address,
  Address,
  Address,
  Address,
  Address,
  Address,
  Address,
  Address,
];
const vaults = {
  merged: [{ address: A[11]!, redeemQueue: A[12]! }, { address: A[13]! }],
  up: [
    { address: A[14]!, depositQueue: A[15]!, withdrawalQueue: A[16]! },
    { address: A[17]!, depositQueue: A[18]!, withdrawalQueue: A[19]! },
  ],
  stock: [{ address: A[20]! }, { address: A[21]! }],
};
const notAgentVault = A[22]!;

const deployments: PolicyDeployments = {
  contracts: {
    usdg,
    limitOrderHook: hook,
    gridStrategy: grid,
    basketZap: zap,
    stockVaultRouter: stockRouter,
    swapRouter,
    ladderStrategy,
    basketMaker,
    aggregator,
  },
  vaults: [
    ...vaults.merged.map((v) => ({ ...v, family: "merged" as const, agent: true })),
    ...vaults.up.map((v) => ({ ...v, family: "up" as const, agent: true })),
    ...vaults.stock.map((v) => ({ ...v, family: "stock-token" as const, agent: true, router: stockRouter })),
    { address: notAgentVault, family: "merged" as const, agent: false },
  ],
};

const USER = "agent-user-1";
const privy = privyPolicyDocument(deployments, wallet);
const turnkey = turnkeyPolicyDocument(deployments, wallet);
const privyRules = privy.policies.map((p) => p.condition as Parameters<typeof privyAllows>[0][number]);
const turnkeyPolicies = turnkey.policies.map((p) => ({ ...p, consensus: p.consensus!.replace("<USER_ID>", USER) }));

const allowsPrivy = (tx: Tx) => privyAllows(privyRules, tx);
const allowsTurnkey = (tx: Tx) => turnkeyAllows(turnkeyPolicies, tx, USER);

/** The request, on these deployments, from the wallet: every contract address is one the service deployed. */
function onDeployments(r: Request, pick: number): Request {
  const p = { ...r.p, owner: wallet } as Record<string, unknown>;
  const m = vaults.merged[pick % 2]!;
  const u = vaults.up[pick % 2]!;
  const s = vaults.stock[pick % 2]!;
  switch (r.kind) {
    case "vault-deposit":
    case "vault-cancel-deposit":
    case "vault-withdraw":
    case "vault-cancel-withdraw": {
      const family = p.family as string;
      const v = family === "merged" ? m : family === "up" ? u : s;
      Object.assign(p, {
        vault: v.address,
        usdg,
        router: stockRouter,
        aggregator,
        depositQueue: (v as { depositQueue?: Address }).depositQueue,
        withdrawalQueue: (v as { withdrawalQueue?: Address }).withdrawalQueue,
        redeemQueue: vaults.merged[0]!.redeemQueue,
      });
      if (family === "merged" && (r.kind === "vault-withdraw" || r.kind === "vault-cancel-withdraw")) Object.assign(p, { vault: vaults.merged[0]!.address });
      break;
    }
    case "limit-order":
    case "ladder":
      Object.assign(p, { hook, usdg });
      break;
    case "order-action":
      Object.assign(p, { hook });
      break;
    case "grid":
      Object.assign(p, { strategy: grid, usdg });
      break;
    case "ladder-strategy":
      Object.assign(p, { ladder: ladderStrategy, usdg, via: "wallet" });
      break;
    case "swap":
      Object.assign(p, { router: swapRouter });
      break;
    case "basket-buy":
    case "basket-sell":
      Object.assign(p, { zap });
      break;
    case "basket-make":
      Object.assign(p, { maker: basketMaker });
      break;
  }
  return { kind: r.kind, p } as Request;
}

const signedAtLink = (step: { to: Address; data: Hex }) => {
  const call = decodeStep(step);
  return (
    (call?.contractAbiName === "stockVaultRouterAbi" && call.functionName === "deposit") ||
    (call?.contractAbiName === "upVaultAbi" && call.functionName === "redeemEmergencyInKind")
  );
};
/** Bundles of kinds (or modes) the spec's allow-list does not name: every step goes through the sign link. */
const offList = (b: Bundle) =>
  b.kind === "swap" ||
  b.kind === "ladder-strategy" ||
  b.kind === "account-agent-call" ||
  b.kind === "basket-make" ||
  (b.kind === "vault-withdraw" && b.params.mode === "queue");

const requests = fc.record({ request: anyRequest, pick: fc.nat() }).map(({ request, pick }) => onDeployments(request, pick));
const tx = (s: { to: Address; data: Hex }, over: Partial<Tx> = {}): Tx => ({ to: s.to, data: s.data, value: 0n, chainId: 4663, ...over });

const ROLE = /^(receiver|recipient|owner|spender|to)$/i;

/** The step with every receiver / recipient / owner / spender address argument (top level or in a struct) replaced. */
function retargeted(step: { to: Address; data: Hex }, to: Address): Hex | null {
  const call = decodeStep(step);
  if (!call) return null;
  let changed = false;
  const args = call.args.map((arg, i) => {
    const input = call.inputs[i]!;
    if (input.type === "address" && ROLE.test(input.name ?? "")) {
      changed = true;
      return to;
    }
    if (input.type === "tuple" && "components" in input && arg && typeof arg === "object") {
      const copy = { ...(arg as Record<string, unknown>) };
      for (const c of input.components)
        if (c.type === "address" && ROLE.test(c.name ?? "")) {
          copy[c.name!] = to;
          changed = true;
        }
      return copy;
    }
    return arg;
  });
  if (!changed) return null;
  const item: AbiFunction = { type: "function", name: call.functionName, inputs: [...call.inputs], outputs: [], stateMutability: "nonpayable" };
  return encodeFunctionData({ abi: [item], functionName: call.functionName, args });
}

describe("wallet policy documents against the bundle builders", () => {
  it("every step of every allow-listed bundle kind is allowed by both documents, but the two the spec signs at the link", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(requests, (request) => {
        const bundle = build(request);
        if (offList(bundle)) return;
        for (const step of bundle.steps) {
          const call = decodeStep(step)!;
          const label = `${bundle.kind} ${call.contractAbiName}.${call.functionName}`;
          seen.add(label);
          const expected = !signedAtLink(step);
          expect(allowsPrivy(tx(step)), `privy: ${label}`).toBe(expected);
          expect(allowsTurnkey(tx(step)), `turnkey: ${label}`).toBe(expected);
        }
      }),
      { numRuns: 1500 },
    );
    // The run met every allow-listed call the builders make.
    for (const label of [
      "vault-deposit mergedVaultAbi.requestDeposit",
      "up-vault-deposit mergedVaultAbi.requestDeposit",
      "stock-vault-deposit stockVaultRouterAbi.deposit",
      "vault-cancel-deposit mergedVaultAbi.cancelDeposit",
      "up-vault-cancel limitOrderHookAbi.cancel",
      "vault-cancel-withdraw limitOrderHookAbi.cancel",
      "vault-withdraw mergedVaultAbi.redeem",
      "vault-withdraw mergedVaultAbi.redeemInKind",
      "up-vault-withdraw upWithdrawalQueueAbi.requestRedeem",
      "up-vault-withdraw testTokenAbi.approve",
      "up-vault-withdraw upVaultAbi.redeemEmergencyInKind",
      "stock-vault-withdraw stockVaultRouterAbi.withdrawUSDG",
      "stock-vault-withdraw testTokenAbi.approve",
      "stock-vault-withdraw stockVaultAbi.redeem",
      "limit-order limitOrderHookAbi.create",
      "limit-order limitOrderHookAbi.createMarketOrder",
      "ladder limitOrderHookAbi.create",
      "order-action limitOrderHookAbi.cancel",
      "order-action limitOrderHookAbi.claim0",
      "order-action limitOrderHookAbi.claim1",
      "order-action limitOrderHookAbi.claimBoth",
      "order-action limitOrderHookAbi.realize",
      "grid gridStrategyAbi.open",
      "grid gridStrategyAbi.openWithMarket",
      "grid gridStrategyAbi.close",
      "grid gridStrategyAbi.setRepeat",
      "grid gridStrategyAbi.collect",
      "basket-buy basketZapAbi.buy",
      "basket-buy testTokenAbi.approve",
      "basket-sell basketZapAbi.sell",
      "basket-sell testTokenAbi.approve",
      "vault-deposit testTokenAbi.approve",
    ])
      expect([...seen].sort(), `${label} (cancel(uint256) decodes first with the hook ABI)`).toContain(label);
  });

  it("for every allowed step, a twin with another receiver, a non-zero value or another chain is denied", () => {
    fc.assert(
      fc.property(
        requests,
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.integer({ min: 1, max: 100_000 }).filter((c) => c !== 4663),
        (request, value, chainId) => {
          const bundle = build(request);
          for (const step of bundle.steps) {
            if (!allowsPrivy(tx(step))) continue;
            expect(allowsTurnkey(tx(step))).toBe(true);
            const label = `${bundle.kind} ${decodeStep(step)!.functionName}`;
            for (const twin of [tx(step, { value }), tx(step, { chainId })]) {
              expect(allowsPrivy(twin), `privy twin of ${label}`).toBe(false);
              expect(allowsTurnkey(twin), `turnkey twin of ${label}`).toBe(false);
            }
            const data = retargeted(step, other);
            if (data) {
              expect(allowsPrivy(tx({ to: step.to, data })), `privy receiver twin of ${label}`).toBe(false);
              expect(allowsTurnkey(tx({ to: step.to, data })), `turnkey receiver twin of ${label}`).toBe(false);
            }
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("the kinds the allow-list does not name are denied (their action steps go through the sign link)", () => {
    fc.assert(
      fc.property(requests, (request) => {
        const bundle = build(request);
        if (!offList(bundle)) return;
        for (const step of bundle.steps) {
          const call = decodeStep(step)!;
          if (call.functionName === "approve") continue; // an approve of USDG may be one the list allows (e.g. to a vault); the action is what matters
          expect(allowsPrivy(tx(step)), `${bundle.kind} ${call.functionName}`).toBe(false);
          expect(allowsTurnkey(tx(step)), `${bundle.kind} ${call.functionName}`).toBe(false);
        }
      }),
      { numRuns: 600 },
    );
  });

  it("a vault agents may not use, and a token approve to anything but the listed spenders, are denied", () => {
    const data = encodeFunctionData({
      abi: [
        {
          type: "function",
          name: "requestDeposit",
          inputs: [
            { type: "uint256", name: "assets" },
            { type: "address", name: "receiver" },
            { type: "uint256", name: "minShares" },
          ],
          outputs: [],
          stateMutability: "nonpayable",
        },
      ],
      functionName: "requestDeposit",
      args: [10n, wallet, 0n],
    });
    expect(allowsPrivy(tx({ to: vaults.merged[0]!.address, data }))).toBe(true);
    expect(allowsPrivy(tx({ to: notAgentVault, data }))).toBe(false);
    expect(allowsTurnkey(tx({ to: notAgentVault, data }))).toBe(false);
    const approve = (spender: Address) =>
      encodeFunctionData({
        abi: [
          {
            type: "function",
            name: "approve",
            inputs: [
              { type: "address", name: "spender" },
              { type: "uint256", name: "amount" },
            ],
            outputs: [],
            stateMutability: "nonpayable",
          },
        ],
        functionName: "approve",
        args: [spender, 5n],
      });
    for (const spender of [swapRouter, ladderStrategy, basketMaker, other]) {
      expect(allowsPrivy(tx({ to: usdg, data: approve(spender) }))).toBe(false);
      expect(allowsTurnkey(tx({ to: usdg, data: approve(spender) }))).toBe(false);
    }
    // Up shares approve only to their own queue; stock shares only to the router.
    expect(allowsTurnkey(tx({ to: vaults.up[0]!.address, data: approve(vaults.up[0]!.withdrawalQueue) }))).toBe(true);
    expect(allowsTurnkey(tx({ to: vaults.up[0]!.address, data: approve(vaults.up[1]!.withdrawalQueue) }))).toBe(false);
    expect(allowsPrivy(tx({ to: vaults.up[0]!.address, data: approve(vaults.up[1]!.withdrawalQueue) }))).toBe(false);
  });
});

describe("the documents' shape", () => {
  it("without a wallet: wallet null and {{WALLET_ADDRESS}} in the conditions; with one: filled in, lowercase in the conditions, checksummed in `wallet` and `contracts`", () => {
    for (const make of [privyPolicyDocument, turnkeyPolicyDocument]) {
      const open = make(deployments);
      expect(open.wallet).toBeNull();
      expect(JSON.stringify(open.policies)).toContain(WALLET_PLACEHOLDER);
      expect(open.placeholders).toHaveProperty(WALLET_PLACEHOLDER);
      const filled = make(deployments, wallet.toLowerCase());
      expect(filled.wallet).toBe(getAddress(wallet));
      expect(JSON.stringify(filled.policies)).not.toContain(WALLET_PLACEHOLDER);
      expect(JSON.stringify(filled.policies)).toContain(wallet.toLowerCase().slice(2));
      expect(filled.chainId).toBe(4663);
      // The conditions hold addresses lowercase, as the providers compare them...
      expect(JSON.stringify(filled.policies)).not.toMatch(/0x[0-9a-f]*[A-F][0-9a-fA-F]*/);
      // ...while the document's addresses are checksummed, as every answer gives them.
      const contracts = filled.contracts as { usdg: string; gridStrategy: string; vaults: Record<string, string>[] };
      expect(contracts.usdg).toBe(getAddress(usdg));
      expect(contracts.gridStrategy).toBe(getAddress(grid));
      expect(contracts.vaults.length).toBeGreaterThan(0);
      for (const v of contracts.vaults) for (const [key, value] of Object.entries(v)) if (key !== "family") expect(value).toBe(getAddress(value));
    }
  });

  it("Turnkey: every policy an ALLOW with the <USER_ID> consensus, chain 4663 and value 0 in its condition", () => {
    for (const p of turnkeyPolicyDocument(deployments).policies) {
      expect(p.effect).toBe("EFFECT_ALLOW");
      expect(p.consensus).toBe("approvers.any(user, user.id == '<USER_ID>')");
      expect(p.condition).toContain("eth.tx.chain_id == 4663");
      expect(p.condition).toContain("eth.tx.value == 0");
    }
    expect(turnkeyPolicyDocument(deployments).placeholders).toHaveProperty("<USER_ID>");
  });

  it("Privy: every rule for eth_sendTransaction with chain_id 4663 and value 0 conditions", () => {
    for (const p of privyPolicyDocument(deployments).policies) {
      const rule = p.condition as { method: string; action: string; conditions: { field_source: string; field: string; operator: string; value: unknown }[] };
      expect(rule.method).toBe("eth_sendTransaction");
      expect(rule.action).toBe("ALLOW");
      expect(rule.conditions).toContainEqual({ field_source: "ethereum_transaction", field: "chain_id", operator: "eq", value: "4663" });
      expect(rule.conditions).toContainEqual({ field_source: "ethereum_transaction", field: "value", operator: "eq", value: "0" });
    }
  });
});
