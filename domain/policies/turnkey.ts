// Turnkey's policy document: one ALLOW policy per allow-list rule, its condition in Turnkey's policy
// language (`eth.tx.to`, `eth.tx.data[a..b]`, `eth.tx.chain_id`, `eth.tx.value`, single-quoted strings),
// its consensus naming the agent's non-root user. Pure.
import type { AllowRule, PolicyDeployments, PolicyDocument } from "./allow-list.js";
import { POLICY_CHAIN_ID, POLICY_NOTES, policyDocument, WALLET_PLACEHOLDER } from "./allow-list.js";

export const TURNKEY_USER_PLACEHOLDER = "<USER_ID>";

const q = (s: string) => `'${s}'`;
const list = (xs: readonly string[]) => `[${xs.map(q).join(", ")}]`;
/** Hex characters of argument word `i`'s address (its last 20 bytes): data is "0x" + selector (8) + words (64 each). */
const addressSlice = (word: number) => `eth.tx.data[${10 + 64 * word + 24}..${10 + 64 * (word + 1)}]`;
const strip0x = (a: string) => a.toLowerCase().replace(/^0x/, "");

export function turnkeyCondition(rule: AllowRule, wallet: string | null): string {
  const walletHex = wallet ? strip0x(wallet) : WALLET_PLACEHOLDER;
  const parts = [`eth.tx.chain_id == ${POLICY_CHAIN_ID}`, "eth.tx.value == 0"];
  if (rule.to) parts.push(rule.to.length === 1 ? `eth.tx.to == ${q(rule.to[0]!)}` : `eth.tx.to in ${list(rule.to)}`);
  const selectors = rule.functions.map((f) => f.selector);
  parts.push(selectors.length === 1 ? `eth.tx.data[0..10] == ${q(selectors[0]!)}` : `eth.tx.data[0..10] in ${list(selectors)}`);
  for (const w of rule.words) {
    if (w.equals === "wallet")
      parts.push(`eth.tx.data[${10 + 64 * w.word}..${10 + 64 * w.word + 24}] == ${q("0".repeat(24))}`, `${addressSlice(w.word)} == ${q(walletHex)}`);
    else
      parts.push(
        `eth.tx.data[${10 + 64 * w.word}..${10 + 64 * w.word + 24}] == ${q("0".repeat(24))}`,
        w.equals.length === 1 ? `${addressSlice(w.word)} == ${q(strip0x(w.equals[0]!))}` : `${addressSlice(w.word)} in ${list(w.equals.map(strip0x))}`,
      );
  }
  if (rule.pair) {
    const p = rule.pair;
    parts.push(`eth.tx.data[${10 + 64 * p.word}..${10 + 64 * p.word + 24}] == ${q("0".repeat(24))}`);
    parts.push(`(${p.pairs.map(([to, at]) => `(eth.tx.to == ${q(to)} && ${addressSlice(p.word)} == ${q(strip0x(at))})`).join(" || ")})`);
  }
  return parts.join(" && ");
}

export function turnkeyPolicyDocument(d: PolicyDeployments, walletInput?: string): PolicyDocument {
  return policyDocument("turnkey", d, walletInput, (rules, wallet) => ({
    placeholders: {
      ...(wallet ? {} : { [WALLET_PLACEHOLDER]: "The agent wallet's address: 40 lowercase hex characters without 0x, as calldata slices hold it" }),
      [TURNKEY_USER_PLACEHOLDER]: "The id of the agent's non-root Turnkey user (the API key the agent signs with)",
    },
    policies: rules.map((rule) => ({
      policyName: `agent: ${rule.description}`,
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(user, user.id == ${q(TURNKEY_USER_PLACEHOLDER)})`,
      condition: turnkeyCondition(rule, wallet),
      notes: [
        ...rule.functions.map((f) => `Allows ${f.signature} (selector ${f.selector}).`),
        ...rule.words.map((w) => `Argument ${w.word + 1} (${w.param}) must be ${w.equals === "wallet" ? "the wallet" : "one of the listed addresses"}.`),
        ...rule.notes,
      ],
    })),
    notes: [...POLICY_NOTES, "Create each policy with the agent's non-root user in its consensus; the root user keeps every other action."],
  }));
}
