// The name and symbol rules of a basket (basket-make refuses with their codes; plan-basket reports the
// first problem and suggests a name). Pure: the caller passes the token names and symbols to avoid and
// whether the symbol is taken on chain.
import type { ErrorCode } from "../errors.js";

export type NameProblem = {
  code: Extract<
    ErrorCode,
    "BAD_NAME" | "NAME_NOT_ALLOWED" | "NAME_IS_TOKEN" | "BAD_SYMBOL" | "RESERVED_SYMBOL" | "SYMBOL_NOT_ALLOWED" | "SYMBOL_IS_TOKEN" | "SYMBOL_TAKEN"
  >;
  message: string;
};

/** Plain characters: letters, digits, spaces and common punctuation; no leading, trailing or double spaces. */
const PLAIN_NAME = /^[\p{L}\p{N}][\p{L}\p{N} .,'&()+\-/]*$/u;
/** Letters, digits, '.', '-' or '+' (what BasketMaker accepts). */
const SYMBOL = /^[A-Za-z0-9.+-]{1,20}$/;
/** Words a user-made basket may not claim: it is unverified until the service lists it. */
const BLOCKED_NAME_WORDS = ["official", "verified", "guaranteed", "risk-free", "riskless", "airdrop", "giveaway", "scam"];
/** Symbols of money and majors that a basket could pass itself off as. */
const BLOCKED_SYMBOLS = new Set(["USD", "USDC", "USDT", "DAI", "ETH", "BTC", "SOL", "EUR", "GBP", "BASKET", "ADMIN", "TEST"]);

export type NameRulesInput = {
  /** Names and symbols of the charted tokens (a basket may not copy them). */
  tokenNames: readonly string[];
  tokenSymbols: readonly string[];
};

export function nameProblem(name: string, rules: NameRulesInput): NameProblem | undefined {
  if (name.length < 1 || name.length > 64 || name.trim() !== name || /\s{2}/.test(name) || !PLAIN_NAME.test(name)) {
    return {
      code: "BAD_NAME",
      message: "The name must be 1-64 plain characters (letters, digits, spaces and . , ' & ( ) + - /), with no leading, trailing or double spaces",
    };
  }
  const lower = name.toLowerCase();
  const word = BLOCKED_NAME_WORDS.find((w) => new RegExp(`(^|[^a-z])${w.replace("-", "\\-")}([^a-z]|$)`).test(lower));
  if (word) return { code: "NAME_NOT_ALLOWED", message: `The name may not say "${word}": a user-made basket is unverified until the service lists it` };
  if ([...rules.tokenNames, ...rules.tokenSymbols].some((t) => t.toLowerCase() === lower)) {
    return { code: "NAME_IS_TOKEN", message: `"${name}" is a token's name or symbol: a basket must not pass for a token` };
  }
  return undefined;
}

export function symbolProblem(symbol: string, rules: NameRulesInput, taken: boolean): NameProblem | undefined {
  if (!SYMBOL.test(symbol)) return { code: "BAD_SYMBOL", message: "The symbol must be 1-20 letters, digits, '.', '-' or '+'" };
  if (/^ts/i.test(symbol)) return { code: "RESERVED_SYMBOL", message: "Symbols starting with ts are reserved for stock tokens" };
  if (BLOCKED_SYMBOLS.has(symbol.toUpperCase())) return { code: "SYMBOL_NOT_ALLOWED", message: `The symbol ${symbol} is not allowed` };
  if (rules.tokenSymbols.some((t) => t.toLowerCase() === symbol.toLowerCase())) {
    return { code: "SYMBOL_IS_TOKEN", message: `${symbol} is a token's symbol: a basket must not pass for a token` };
  }
  if (taken) return { code: "SYMBOL_TAKEN", message: `Another basket has the symbol ${symbol} (case is ignored)` };
  return undefined;
}

/** A name and symbol from the tokens' symbols, e.g. "WETH LINK SOLX Basket" / "WETH-LINK-SOLX" (trimmed to fit). */
export function suggestName(symbols: readonly string[]): { name: string; symbol: string } {
  const parts = symbols.map((s) => s.replace(/[^A-Za-z0-9]/g, "")).filter(Boolean);
  let name = `${parts.join(" ")} Basket`;
  if (name.length > 64) name = `${parts.slice(0, 4).join(" ")} Mix Basket`.slice(0, 64).trim();
  let symbol = parts.map((p) => p.slice(0, 4).toUpperCase()).join("-");
  if (symbol.length > 20) symbol = symbol.slice(0, 20).replace(/-+$/, "");
  if (/^ts/i.test(symbol)) symbol = `B-${symbol}`.slice(0, 20);
  return { name, symbol: symbol || "BSKT" };
}
