// The products the service builds bundles for, each declared once in its folder. A new product (or a new
// prepare kind of one) is a folder here, registered in this list: the money-safety check, the sign page's
// words and titles, the policy documents and the report card read every product from it. The order is the
// policy documents' order of rules.
import { baskets } from "./baskets/index.js";
import { grid } from "./grid/index.js";
import { ladderStrategy } from "./ladder-strategy/index.js";
import { limitOrders } from "./limit-orders/index.js";
import type { BundleRules, Call, Carrier, Product } from "./product.js";
import { swap } from "./swap/index.js";
import { vaults } from "./vaults/index.js";

/** The registered products: the one list a new product is added to. */
const registered = [vaults, limitOrders, grid, ladderStrategy, swap, baskets] as const satisfies readonly Product[];
export const products: readonly Product[] = registered;
type Registered = (typeof registered)[number];
/** The keys of each member of a union (keyof a union alone gives only the keys all members share). */
type KeysOf<T> = T extends unknown ? keyof T : never;
/** A union of object types as one object type with every member's fields. */
type Merged<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * Bundle kinds, as the spec's prepare table names them. The request kind is the bundle kind for the
 * merged family and for every kind the table gives no other name; `up-vault-cancel` serves both of the
 * up family's cancels (deposit and withdrawal); `account-agent-call` is a ladder-strategy action sent
 * through the owner's agent account.
 */
export type BundleKind = KeysOf<Registered["bundles"]>;

/** Every bundle kind, in the products' order. */
export const bundleKinds = products.flatMap((p) => Object.keys(p.bundles)) as BundleKind[];

/** Every prepare kind's refusals, by kind (contract/prepare-kinds.ts pairs each with its request body). */
export const prepareKindRefusals = Object.assign({}, ...registered.map((p) => p.kinds)) as Merged<Registered["kinds"]>;

const byBundleKind = new Map<string, BundleRules>(products.flatMap((p) => Object.entries(p.bundles)));

/** A bundle kind's title and grading rule (undefined for a kind no product builds). */
export const bundleRules = (kind: string): BundleRules | undefined => byBundleKind.get(kind);

/** Every call of every product, by `<abi export name>.<function name>`, in the products' order. */
export const productCalls: readonly (readonly [string, Call | Carrier])[] = products.flatMap((p) => Object.entries(p.calls));
