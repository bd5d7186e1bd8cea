// Privy's policy document: one ALLOW rule per allow-list rule, in Privy's rule JSON (method, conditions
// with field_source and operator). Transaction fields are `ethereum_transaction` conditions; arguments are
// `ethereum_calldata` conditions decoded with the function's ABI, which reads them by position. Pure.
import type { AbiFunction } from "viem";
import type { AllowRule, PolicyDeployments, PolicyDocument } from "./allow-list.js";
import { POLICY_CHAIN_ID, POLICY_NOTES, policyDocument, WALLET_PLACEHOLDER } from "./allow-list.js";

export type PrivyCondition =
  | { field_source: "ethereum_transaction"; field: "to" | "value" | "chain_id"; operator: "eq" | "in"; value: string | string[] }
  | { field_source: "ethereum_calldata"; field: string; abi: unknown[]; operator: "eq" | "in" | "gte"; value: string | string[] };

export type PrivyRule = { name: string; method: "eth_sendTransaction"; action: "ALLOW"; conditions: PrivyCondition[] };

/** One Privy rule per function (a calldata condition decodes with one function's ABI). */
export function privyRules(rule: AllowRule, wallet: string | null): PrivyRule[] {
  const who = wallet ?? WALLET_PLACEHOLDER;
  const pairs = rule.pair ? rule.pair.pairs.map((p) => [p] as const) : [null];
  return rule.functions.flatMap((f) =>
    pairs.map((pair) => {
      const calldata = (field: string, operator: "eq" | "in" | "gte", value: string | string[]): PrivyCondition => ({
        field_source: "ethereum_calldata",
        field: `${f.item.name}.${field}`,
        abi: [f.item],
        operator,
        value,
      });
      const conditions: PrivyCondition[] = [
        { field_source: "ethereum_transaction", field: "chain_id", operator: "eq", value: String(POLICY_CHAIN_ID) },
        { field_source: "ethereum_transaction", field: "value", operator: "eq", value: "0" },
      ];
      const to = pair ? [pair[0][0]] : rule.to;
      if (to)
        conditions.push(
          to.length === 1
            ? { field_source: "ethereum_transaction", field: "to", operator: "eq", value: to[0]! }
            : { field_source: "ethereum_transaction", field: "to", operator: "in", value: [...to] },
        );
      // A function with no checked argument still needs a calldata condition: only calldata that decodes
      // as this function satisfies it, so it pins the selector (an amount or id is always >= 0).
      if (rule.words.length === 0 && !pair) conditions.push(calldata(pinField(f.item), "gte", "0"));
      for (const w of rule.words) {
        const name = f.item.inputs[w.word]!.name!;
        conditions.push(
          w.equals === "wallet" ? calldata(name, "eq", who) : w.equals.length === 1 ? calldata(name, "eq", w.equals[0]!) : calldata(name, "in", [...w.equals]),
        );
      }
      if (pair && rule.pair) conditions.push(calldata(f.item.inputs[rule.pair.word]!.name!, "eq", pair[0][1]));
      return {
        name: `${rule.name}: ${f.signature}${pair ? ` on ${pair[0][0]}` : ""}`,
        method: "eth_sendTransaction" as const,
        action: "ALLOW" as const,
        conditions,
      };
    }),
  );
}

/** The first unsigned-integer argument (or struct field, as `struct.field`) of a function. */
function pinField(item: AbiFunction): string {
  for (const input of item.inputs) if (input.type.startsWith("uint")) return input.name!;
  for (const input of item.inputs) {
    const uint = "components" in input ? input.components.find((c) => c.type.startsWith("uint")) : undefined;
    if (uint) return `${input.name}.${uint.name}`;
  }
  throw new Error(`${item.name} has no unsigned-integer argument to pin it by`);
}

export function privyPolicyDocument(d: PolicyDeployments, walletInput?: string): PolicyDocument {
  return policyDocument("privy", d, walletInput, (rules, wallet) => ({
    placeholders: (wallet ? {} : { [WALLET_PLACEHOLDER]: "The agent wallet's address, lowercase with 0x" }) as Record<string, string>,
    policies: rules.flatMap((rule) =>
      privyRules(rule, wallet).map((r) => ({
        policyName: r.name,
        effect: "ALLOW",
        consensus: null,
        condition: { method: r.method, action: r.action, conditions: r.conditions },
        notes: [rule.description, ...rule.notes],
      })),
    ),
    notes: [...POLICY_NOTES, "Put every rule in one Privy policy (chain_type ethereum) on the agent's wallet: anything no rule allows is denied."],
  }));
}
