// A small interpreter of the subset of Turnkey's and Privy's policy languages that the policy documents
// use, to check the documents against real bundles. It is written from the providers' documented
// semantics, independently of the builders in domain/policies/.
//
// Turnkey: conditions over eth.tx.to (lowercase hex), eth.tx.data (lowercase hex with 0x, sliced by
// character positions [a..b], end exclusive), eth.tx.chain_id and eth.tx.value (numbers); single-quoted
// strings, numbers, lists; ==, !=, in; &&, ||; parentheses. A policy allows when its effect is
// EFFECT_ALLOW, its consensus names the signing user, and its condition is true.
// Privy: rules {method, action, conditions}; a rule applies when every condition holds; conditions on
// ethereum_transaction (to, value, chain_id) or ethereum_calldata (decoded with the condition's ABI, the
// field `function.param[.field]`); operators eq, in, gte. DENY wins; nothing matching is denied.
import { decodeFunctionData, type Abi, type Hex } from "viem";

export type Tx = { to: string; data: Hex; value: bigint; chainId: number };

// ------------------------------------------------------------------ Turnkey

type Token = { t: "id" | "str" | "num" | "op" | "punct"; v: string };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new Error("unterminated string");
      out.push({ t: "str", v: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (["==", "!=", "&&", "||", ".."].includes(two)) {
      out.push({ t: two === ".." ? "punct" : "op", v: two });
      i += 2;
      continue;
    }
    if ("()[],".includes(ch)) {
      out.push({ t: "punct", v: ch });
      i++;
      continue;
    }
    const num = /^\d+/.exec(src.slice(i));
    if (num) {
      out.push({ t: "num", v: num[0] });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(src.slice(i));
    if (id) {
      // "eth.tx.data[0..10]": an identifier never ends with a dot.
      const name = id[0].replace(/\.+$/, "");
      out.push({ t: name === "in" ? "op" : "id", v: name });
      i += name.length;
      continue;
    }
    throw new Error(`unexpected ${JSON.stringify(src.slice(i, i + 10))}`);
  }
  return out;
}

type Value = string | bigint | Value[];

export function evalTurnkeyCondition(condition: string, tx: Tx): boolean {
  const tokens = tokenize(condition);
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (v?: string) => {
    const tok = tokens[pos++];
    if (!tok || (v !== undefined && tok.v !== v)) throw new Error(`expected ${v ?? "a token"} at ${pos - 1}, got ${tok?.v}`);
    return tok;
  };
  const field = (name: string): Value => {
    switch (name) {
      case "eth.tx.to":
        return tx.to.toLowerCase();
      case "eth.tx.data":
        return tx.data.toLowerCase();
      case "eth.tx.chain_id":
        return BigInt(tx.chainId);
      case "eth.tx.value":
        return tx.value;
      default:
        throw new Error(`unknown field ${name}`);
    }
  };
  const operand = (): Value => {
    const tok = take();
    if (tok.t === "str") return tok.v;
    if (tok.t === "num") return BigInt(tok.v);
    if (tok.t === "punct" && tok.v === "[") {
      const items: Value[] = [];
      while (peek()?.v !== "]") {
        items.push(operand());
        if (peek()?.v === ",") take(",");
      }
      take("]");
      return items;
    }
    if (tok.t === "id") {
      let value = field(tok.v);
      if (peek()?.v === "[") {
        take("[");
        const a = Number(take().v);
        take("..");
        const b = Number(take().v);
        take("]");
        if (typeof value !== "string") throw new Error("slicing a non-string");
        value = value.slice(a, b);
      }
      return value;
    }
    throw new Error(`unexpected ${tok.v}`);
  };
  const equal = (a: Value, b: Value) => typeof a === typeof b && !Array.isArray(a) && a === b;
  const comparison = (): boolean => {
    if (peek()?.v === "(") {
      take("(");
      const v = or();
      take(")");
      return v;
    }
    const left = operand();
    const op = take().v;
    const right = operand();
    if (op === "==") return equal(left, right);
    if (op === "!=") return !equal(left, right);
    if (op === "in") return Array.isArray(right) && right.some((x) => equal(left, x));
    throw new Error(`unknown operator ${op}`);
  };
  const and = (): boolean => {
    let v = comparison();
    while (peek()?.v === "&&") {
      take("&&");
      v = comparison() && v;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (peek()?.v === "||") {
      take("||");
      v = and() || v;
    }
    return v;
  };
  const result = or();
  if (pos !== tokens.length) throw new Error(`trailing tokens from ${pos}`);
  return result;
}

type TurnkeyPolicy = { effect: string; consensus: string | null; condition: unknown };

/** Whether any ALLOW policy whose consensus names `userId` allows the transaction. */
export function turnkeyAllows(policies: readonly TurnkeyPolicy[], tx: Tx, userId: string): boolean {
  return policies.some(
    (p) =>
      p.effect === "EFFECT_ALLOW" &&
      typeof p.consensus === "string" &&
      p.consensus === `approvers.any(user, user.id == '${userId}')` &&
      evalTurnkeyCondition(p.condition as string, tx),
  );
}

// ------------------------------------------------------------------ Privy

type PrivyCondition = { field_source: string; field: string; operator: string; value: string | string[]; abi?: Abi };
type PrivyRule = { method: string; action: string; conditions: PrivyCondition[] };

function privyCompare(actual: unknown, operator: string, expected: string | string[]): boolean {
  const norm = (x: unknown): string => (typeof x === "bigint" ? x.toString() : typeof x === "boolean" ? String(x) : String(x).toLowerCase());
  const num = (x: unknown) => BigInt(typeof x === "bigint" ? x : String(x));
  switch (operator) {
    case "eq":
      return !Array.isArray(expected) && norm(actual) === norm(expected);
    case "in":
      return Array.isArray(expected) && expected.some((e) => norm(actual) === norm(e));
    case "gte":
      return typeof actual === "bigint" && !Array.isArray(expected) && num(actual) >= num(expected);
    default:
      throw new Error(`unknown operator ${operator}`);
  }
}

function privyCondition(c: PrivyCondition, tx: Tx): boolean {
  if (c.field_source === "ethereum_transaction") {
    const actual = c.field === "to" ? tx.to.toLowerCase() : c.field === "value" ? tx.value : c.field === "chain_id" ? BigInt(tx.chainId) : undefined;
    if (actual === undefined) throw new Error(`unknown transaction field ${c.field}`);
    return privyCompare(actual, c.operator, c.value);
  }
  if (c.field_source === "ethereum_calldata") {
    const [fnName, ...path] = c.field.split(".");
    let decoded;
    try {
      decoded = decodeFunctionData({ abi: c.abi!, data: tx.data });
    } catch {
      return false;
    }
    if (decoded.functionName !== fnName) return false;
    const item = c.abi!.find((x) => x.type === "function" && x.name === fnName) as unknown as { inputs: { name: string }[] };
    const index = item.inputs.findIndex((i) => i.name === path[0]);
    if (index < 0) throw new Error(`no parameter ${path[0]} in ${fnName}`);
    let value: unknown = decoded.args![index];
    for (const key of path.slice(1)) value = (value as Record<string, unknown>)[key];
    return privyCompare(value, c.operator, c.value);
  }
  throw new Error(`unknown field_source ${c.field_source}`);
}

/** Whether the rules allow an eth_sendTransaction of `tx` (DENY wins; default deny). */
export function privyAllows(rules: readonly PrivyRule[], tx: Tx): boolean {
  const applying = rules.filter((r) => r.method === "eth_sendTransaction" && r.conditions.every((c) => privyCondition(c, tx)));
  if (applying.some((r) => r.action === "DENY")) return false;
  return applying.some((r) => r.action === "ALLOW");
}
