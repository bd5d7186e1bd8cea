// What a product declares, once, in its folder (domain/products/<product>/): its prepare kinds and their
// refusals, the bundle kinds its builders answer (with the sign page's title and the grading rule of each),
// the contract functions its bundles call (what each pulls, and its words), and its wallet-policy rules.
// The money-safety check, the sign page's words, the policy documents and the report card loop over the
// products registered in ./index.ts. Pure.
import type { AbiName, SpendRule } from "../bundles/call.js";
import type { Describer } from "../bundles/words.js";
import type { ErrorCode } from "../errors.js";
import type { GradingRule } from "../grading/plan.js";
import type { AllowRule, PolicyProducts } from "../policies/rule.js";

/** A contract function the product's bundles call from the owner's wallet. */
export type Call = {
  /** The call in words, for the sign page. */
  words: Describer;
  /** What it pulls from the caller: such a call must spend an exact approval made before it in the bundle (money-safety rule 5). */
  spend?: SpendRule;
};

/** A call that carries another in its first (bytes) argument: the agent account's ladder(bytes). The carried call is checked and described as itself. */
export type Carrier = {
  /** `said`: what it may carry, in words, for the money-safety check's line ("a LadderStrategy open, ..."). */
  carries: { abi: AbiName; functions: readonly string[]; said: string };
};

/** The calls by `<abi export name>.<function name>` (e.g. "gridStrategyAbi.open"). */
export type Calls = Readonly<Record<`${AbiName}.${string}`, Call | Carrier>>;

/** A bundle kind's page title and grading rule. */
export type BundleRules = { title: string; grade: GradingRule };

/**
 * A prepare kind's refusals: the codes its route documents, and `reverts`, the simulation reverts answered as
 * those refusals rather than 422 SIMULATION_FAILED (the projection lagged behind the chain). The compiler
 * checks that every revert is among the refusals, so the document names every code a route answers.
 */
export function prepareKind<R extends ErrorCode>(row: { refusals: readonly R[]; reverts: readonly NoInfer<R>[] }) {
  return row;
}

/** The rules a product adds to the wallet-policy allow-list (domain/policies/allow-list.ts). */
export type ProductPolicy = {
  /** The contracts USDG may be approved to (one rule for every product's). */
  usdgSpenders?: (p: PolicyProducts) => (string | undefined)[];
  /** Its own token approvals (any token, to its contract). */
  approvals?: (p: PolicyProducts) => AllowRule[];
  /** Its calls' rules. */
  rules: (p: PolicyProducts) => AllowRule[];
};

/** A contract of the service the product's calls go to: its key in the deployments' `contracts`, its name on the sign page, and its ABI. */
export type ProductContract = { key: string; name: string; abi: AbiName };

export type Product = {
  name: string;
  /** Its singleton contracts (the vaults and their queues are named from the deployments' vault list). */
  contracts: readonly ProductContract[];
  /** Its prepare kinds (POST /v1/agent/prepare/{kind}); contract/prepare-kinds.ts pairs each with its request body. */
  kinds: Readonly<Record<string, { refusals: readonly ErrorCode[]; reverts: readonly ErrorCode[] }>>;
  /** Its bundle kinds (BundleKind is their union, ./index.ts). */
  bundles: Readonly<Record<string, BundleRules>>;
  calls: Calls;
  policy?: ProductPolicy;
};
