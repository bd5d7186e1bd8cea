// THE error catalog: every error code the service answers, with its default message (the `error` field)
// and when it happens. It is the single source for error answers, the OpenAPI document and skill.md; the
// HTTP status of each code is the wire's (contract/error-statuses.ts). Pure: no I/O, no HTTP.

export type ErrorEntry = {
  /** Default `error` text; an ApiError may carry a more specific one. */
  readonly message: string;
  /** Where and when the code is answered (for the OpenAPI document and skill.md). */
  readonly when: string;
};

const basketBuy = "basket-buy (and basket-sell, which refuses with every basket-buy code)";

export const errorCatalog = {
  // the request itself
  INVALID_REQUEST: {
    message: "Invalid request",
    when: "any route: the request does not match its schema (the field is named), its body is over 64 KiB (field body, with its size and the limit) or not application/json (field content-type)",
  },

  // who asks: the owner's session
  SESSION_REQUIRED: {
    message: "A report-card session is required",
    when: "report-card routes that need the owner's session token (Authorization: Bearer)",
  },
  CHALLENGE_EXPIRED: {
    message: "The sign-in challenge is unknown or expired: ask for a new one",
    when: "session exchange: the challenge is older than 5 minutes, or unknown",
  },
  BAD_SIGNATURE: {
    message: "The signature does not match the owner",
    when: "session exchange: the personal_sign signature is not the owner's over the message as issued (a wrong signer or an altered message), or the challenge was used already (a replay) or issued to another owner",
  },

  // payment
  PAYMENT_REQUIRED: {
    message: "Payment required",
    when: "backtest grid, backtest ladder and ranges over more than 30 days without a payment, or with one refused (invalid, underpaid, expired, replayed, for another payee, not settled): x402 v2's PaymentRequired, also in the PAYMENT-REQUIRED header; pay in the PAYMENT-SIGNATURE header",
  },

  // what the request names does not exist (or is not for agents)
  NOT_FOUND: {
    message: "Not found",
    when: "unknown routes, unknown or expired sign requests, basket-buy and basket-sell naming an address with no contract (a contract that is no basket is UNKNOWN_BASKET), prepare routes naming an unknown order, grid, ladder or request id",
  },
  NOT_AGENT_VAULT: { message: "Not a vault agents may use", when: "vault and prepare routes, for any vault agents may not use" },
  CURSOR_NOT_FOUND: {
    message: "Unknown or expired cursor",
    when: "activity with an unknown cursor or one older than 14 days: call again without a cursor for a new baseline",
  },
  REPORT_CARDS_DISABLED: { message: "Report cards are disabled", when: "report-card routes while report cards are off" },
  ACCOUNTS_DISABLED: {
    message: "Agent accounts are disabled",
    when: "ladder-strategy via account while agent accounts are off (the service's AGENT_ACCOUNTS, or the chain's account factory)",
  },
  UNKNOWN_BASKET: {
    message: "Unknown basket",
    when: `${basketBuy}: a symbol no listed basket has, or a contract the basket registry does not know`,
  },

  // what the request was made against changed
  SWAP_CONTRACTS_CHANGED: { message: "The swap contracts changed; prepare again", when: "swap prepare" },

  // refused: backtests and planners
  NO_CANDLES: { message: "No price history for this token", when: "backtests, ranges, grid plan, ladder plan" },
  GAP_TOO_TIGHT: { message: "The gap is too tight for the fee", when: "grid plan" },

  // refused: tokens (swap quote and prepare, plan-basket, basket routes)
  UNKNOWN_TOKEN: {
    message: "Unknown token",
    when: "swap quote and prepare, plan-basket, basket-make, limit-order, ladder, grid, ladder-strategy",
  },
  NOT_A_TOKEN: { message: "The address is not a token", when: "swap quote and prepare" },
  SAME_TOKEN: { message: "tokenIn and tokenOut are the same token", when: "swap quote and prepare" },
  NATIVE_ETH_IN: { message: "Native ETH cannot be paid in: use WETH", when: "swap, basket-buy, basket-make" },
  NATIVE_ETH_TOKEN: { message: "Native ETH cannot be a basket token: use WETH", when: "plan-basket, basket-make" },
  SWAP_NO_ROUTE: {
    message: "The aggregator has no route for this swap",
    when: "swap quote and prepare; vault-deposit into a stock-token vault and vault-withdraw mode usdg, when no route carries the amount",
  },
  SWAP_PAUSED: { message: "Swaps are paused", when: "swap prepare" },

  // refused: basket shape (plan-basket, basket-make)
  DUPLICATE_TOKEN: { message: "A token is listed twice", when: "plan-basket, basket-make" },
  TOKEN_COUNT: { message: "Wrong number of tokens", when: "plan-basket (1-8), basket-make (2-8)" },
  WEIGHTS_PARTIAL: { message: "Give every token's weight, or none", when: "plan-basket" },
  WEIGHTS_SUM: { message: "Weights must sum to 100%", when: "plan-basket, basket-make" },
  WEIGHT_TOO_SMALL: { message: "Each weight must be at least 1%", when: "plan-basket, basket-make" },
  MAKE_FEE: { message: "The swap fee must be 0.3 or 1 percent", when: "plan-basket, basket-make" },
  NO_ANCHOR: { message: "A basket must hold USDG or WETH", when: "basket-make" },

  // refused: vault-deposit
  DEPOSITS_CLOSED: { message: "The vault does not take deposits", when: "vault-deposit into a closed vault (the answer carries the reason)" },
  DEPOSITS_PAUSED: { message: "Deposits into the vault are paused", when: "vault-deposit into a paused vault (the answer carries the reason)" },
  VAULT_FULL: { message: "The vault is full", when: "vault-deposit into a full vault (the answer carries the reason)" },
  CAPACITY: {
    message: "The deposit exceeds the vault's remaining capacity",
    when: "vault-deposit above the vault's room (the message gives the room left under its cap now, in whole and base units)",
  },

  // refused: ladder-strategy (each names the part: an amount's exact minimum as {part, minimum, unit}, a price
  // bound as {part, priceUsd, limitUsd} in USDG per whole token)
  NOT_LISTED: { message: "The market is not listed", when: "ladder-strategy" },
  MARKET_NOT_OPEN: { message: "The market is not open", when: "ladder-strategy, limit-order, ladder, grid open" },
  WRONG_SIDE: {
    message: "A line is on the wrong side of the price now",
    when: "ladder-strategy (details {part, priceUsd, limitUsd}: the part, the price now and the line it crossed, USDG per whole token; the message gives the exact bound as a priceX18)",
  },
  NO_REFERENCE: { message: "The market has no reference price", when: "ladder-strategy" },
  FIRST_TOO_SMALL: { message: "The first part is below its minimum", when: "ladder-strategy (details {part, minimum, unit})" },
  FOLLOW_UP_TOO_SMALL: { message: "A follow-up part is below its minimum", when: "ladder-strategy (details {part, minimum, unit})" },
  NO_TRIP_HEADROOM: {
    message: "A part's round trip does not clear the fees",
    when: "ladder-strategy (details {part, priceUsd, limitUsd}: the part's sell line and the lowest sell line that passes, USDG per whole token; the message gives it as a priceX18)",
  },

  // refused: basket-buy, basket-sell
  BAD_TOKEN: { message: "This token cannot pay for or be received from this basket", when: basketBuy },
  BASKET_SELL_ONLY: {
    message: "This basket can only be sold",
    when: `${basketBuy}: the service's own hidden baskets and those taken off the site`,
  },
  BASKET_PAUSED: { message: "The basket is paused", when: basketBuy },
  TOKEN_PAUSED: { message: "A basket token is paused", when: `${basketBuy}, basket-make (details.token)` },
  TOKEN_FROZEN: { message: "A basket token is frozen", when: `${basketBuy} (details.token)` },
  TOKEN_SHORTFALL: {
    message: "Not enough of a token to complete the trade",
    when: "basket-sell: the owner holds fewer basket tokens than the amount (details.token). A buy short of funds is no refusal: 200 with issues.balance",
  },
  AMOUNT_TOO_SMALL: {
    message: "The amount is too small",
    when: `${basketBuy}, basket-make, vault-deposit, limit-order, ladder, grid open (details {minimum, unit})`,
  },
  BASKET_NO_ROUTE: { message: "The aggregator has no route for a basket token", when: `${basketBuy}, basket-make (details.token)` },
  PRICE_IMPACT_TOO_HIGH: { message: "The price impact is over 3%", when: `${basketBuy}, basket-make (details {priceUsd, limitUsd})` },
  LEG_MINIMUM_TOO_LOW: {
    message: "A leg's aggregator minimum is too far under its quote",
    when: `${basketBuy}, basket-make: more than max(slippageBps, 1%) under (details.token)`,
  },
  ROUTE_TOO_LARGE: { message: "The aggregator route is too large for the zap (32,000 bytes)", when: `${basketBuy}, basket-make` },
  NOTHING_TO_SELL: { message: "The owner holds none of this basket", when: "basket-sell" },
  SELL_REFUSED: { message: "The sell would be refused", when: "basket-sell" },

  // refused: basket-make
  BAD_DEPOSIT_TOKEN: { message: "The first deposit must be paid in USDG or WETH", when: "basket-make" },
  NOT_ON_TRADE_LIST: { message: "The token is not on the trade list", when: "basket-make (details.token)" },
  BAD_NAME: { message: "The name must be 1-64 plain characters", when: "basket-make" },
  BAD_SYMBOL: { message: "The symbol must be 1-20 letters, digits, '.', '-' or '+'", when: "basket-make" },
  RESERVED_SYMBOL: { message: "Symbols starting with ts are reserved", when: "basket-make" },
  NAME_NOT_ALLOWED: { message: "The name is not allowed", when: "basket-make" },
  NAME_IS_TOKEN: { message: "The name is a token's name", when: "basket-make" },
  SYMBOL_NOT_ALLOWED: { message: "The symbol is not allowed", when: "basket-make" },
  SYMBOL_IS_TOKEN: { message: "The symbol is a token's symbol", when: "basket-make" },
  SYMBOL_TAKEN: { message: "Another basket has this symbol", when: "basket-make" },
  DEPOSIT_TOO_SMALL: { message: "The first deposit must be worth at least 25 USD", when: "basket-make (details {minimum, unit})" },
  MAKE_REFUSED: { message: "The basket maker would refuse this basket", when: "basket-make" },

  // refused: any prepare. The spec gives no code for this refusal; this one is ours.
  RECEIVER_NOT_OWNER: {
    message: "Every receiver and owner must be the request's owner",
    when: "any prepare route, when a receiver or owner is not `owner`",
  },

  // refused, or not found: the prepare routes whose refusals the spec leaves unnamed (vault-cancel-*, vault-withdraw,
  // limit-order, ladder, order-action, grid) and the bundle simulation. These are ours.
  NOT_YOUR_REQUEST: {
    message: "The request is not the owner's",
    when: "vault-cancel-deposit, vault-cancel-withdraw: the queued request belongs to another wallet",
  },
  REQUEST_NOT_PENDING: {
    message: "The request is no longer pending",
    when: "vault-cancel-deposit, vault-cancel-withdraw: the request was settled or cancelled already",
  },
  NOTHING_TO_WITHDRAW: {
    message: "The owner does not hold these shares",
    when: "vault-withdraw: the owner's share balance is below the shares asked (details.token: the vault, whose shares they are; the message gives the balance)",
  },
  BELOW_QUEUE_MINIMUM: {
    message: "The shares are below the withdrawal queue's minimum: use mode in-kind",
    when: "vault-withdraw mode queue of an up vault (details {minimum, unit}: shares, unit token)",
  },
  NOT_YOUR_ORDER: { message: "The order is not the owner's", when: "order-action on another wallet's order" },
  ORDER_CLOSED: {
    message: "The order is closed",
    when: "order-action: cancel or realize of an order that no longer trades, a claim of a closed order",
  },
  NOTHING_TO_CLAIM: { message: "The order owes nothing to claim", when: "order-action claim0, claim1, claimBoth" },
  NOTHING_FILLED: { message: "The order has no fill to realize: cancel it instead", when: "order-action realize" },
  NOT_YOUR_GRID: { message: "The grid is not the owner's", when: "grid close, setRepeat, collect on another wallet's grid" },
  GRID_CLOSED: { message: "The grid is closed", when: "grid close, setRepeat, collect" },
  NOT_YOUR_LADDER: { message: "The ladder is not the owner's", when: "ladder-strategy close, setRepeat, collect on another wallet's ladder" },
  LADDER_CLOSED: { message: "The ladder is closed", when: "ladder-strategy close, setRepeat, collect" },
  NOTHING_TO_COLLECT: { message: "Nothing to collect", when: "grid collect, ladder-strategy collect" },
  // refused: ladder-strategy via account. The spec names the account's numbers but no codes; these are ours.
  NO_AGENT_ACCOUNT: {
    message: "No agent account lets this key trade",
    when: "ladder-strategy via account: no account (the one named, or the owner's own) has `owner` as its agent or owner",
  },
  ACCOUNT_FLOOR: {
    message: "A buy line is below the account's floor",
    when: "ladder-strategy via account open (details {part, priceUsd, limitUsd})",
  },
  ACCOUNT_CEILING: {
    message: "A sell line is above the account's ceiling, or the account has no ceiling",
    when: "ladder-strategy via account open: the ceiling is required (details {part, priceUsd, limitUsd})",
  },
  ACCOUNT_BUDGET: {
    message: "The open exceeds the account's budget",
    when: "ladder-strategy via account open (details {minimum, unit, limitUsd}: the USDG the open commits, and what the budget has left)",
  },
  ACCOUNT_FEE_CAP: { message: "The strategy fee is above the account's fee cap", when: "ladder-strategy via account open" },
  ACCOUNT_SPREAD: {
    message: "A part's spread is below the account's minimum",
    when: "ladder-strategy via account open (details {part, priceUsd, limitUsd}: the part's sell line and the lowest sell line that passes)",
  },
  SIMULATION_FAILED: {
    message: "The bundle would revert",
    when: "any prepare route: the simulation of the whole bundle reverts for a reason other than the owner's balance (the message carries the decoded reason and the step); a short balance answers 200 with issues.balance",
  },

  // too much at once
  RATE_LIMITED: { message: "Too many requests: retry after the Retry-After seconds", when: "any route, per client (IP, or owner where given)" },
  BUSY: {
    message: "The service is busy: retry shortly",
    when: "any read or prepare route (treat it as RATE_LIMITED: wait Retry-After); answered today by the routes that run jobs, when the job queue is saturated, and by swap quote, basket plan and the prepares with aggregator legs, when the aggregator route budget has no turn within the wait (AGGREGATOR_WAIT_MS)",
  },

  // our fault
  INTERNAL: { message: "Internal error", when: "an unexpected fault (logged; never caused by the request)" },

  // not serving now: retry
  UNAVAILABLE: { message: "Service unavailable: retry shortly", when: "any route, while Postgres, Redis or the chain RPC is unreachable" },
  SCAN_PREPARING: { message: "The scan is being prepared: retry in a minute", when: "grid tokens, ladder tokens" },
  NOT_DEPLOYED: { message: "Not deployed on this chain", when: "ladder-strategy, basket-buy, basket-sell, basket-make" },
  ZAP_UNAVAILABLE: { message: "The basket zap is unavailable", when: "basket-buy, basket-sell, basket-make" },
  AGGREGATOR_CHANGED: {
    message: "The swap aggregator changed: retry shortly",
    when: "basket-buy, basket-sell, basket-make, vault-deposit (stock-token), vault-withdraw mode usdg: the contract now uses another aggregator",
  },
  MAKER_NOT_DEPLOYED: { message: "The basket maker is not deployed", when: "basket-make" },
  TRADE_LIST_LOADING: { message: "The trade list is loading: retry shortly", when: "basket-make" },
  SWAP_UNAVAILABLE: { message: "Swaps are unavailable", when: "swap prepare" },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(errorCatalog, value);
}

/** Error.details of the spec, plus the validation fields `field` and `issues` (400 INVALID_REQUEST). */
export type ErrorDetails = {
  /** The ladder-strategy part, from 1. */
  part?: number;
  /** Exact minimum amount in base units of `unit` (never a price: prices are priceUsd and limitUsd). */
  minimum?: string;
  unit?: "USDG" | "token";
  /** USDG per whole token: the price now, or the part's line that broke a bound. */
  priceUsd?: number;
  /** The limit the price broke, in USDG per whole token (or USDG left, for a budget). */
  limitUsd?: number;
  /** The token named. */
  token?: string;
  /** INVALID_REQUEST and RECEIVER_NOT_OWNER: the first field at fault (`owner`, `tokens[1].weightPct`, `body`). */
  field?: string;
  /** INVALID_REQUEST: every problem found. */
  issues?: { field: string; message: string }[];
};

/** The fields of the spec's Error.details, and INVALID_REQUEST's own two. */
export const SPEC_DETAIL_FIELDS = ["part", "minimum", "unit", "priceUsd", "limitUsd", "token"] as const;
const VALIDATION_FIELDS = ["field", "issues"] as const;
/** Refusals of the request's own shape, which name the field at fault as validation does. */
const REQUEST_FIELD_CODES: ReadonlySet<string> = new Set(["INVALID_REQUEST", "RECEIVER_NOT_OWNER"]);
/** Decimals of each `unit` a minimum may be in; a token's own vary, up to 18. */
const UNIT_DECIMALS = { USDG: 6, token: 18 } as const;
/** No minimum this service answers is a trillion whole units or more: past it, a price was labelled an amount. */
const MAX_WHOLE_UNITS = 10n ** 12n;

/**
 * What in `details` is not the spec's Error.details: a field it does not name, a `minimum` that is not
 * whole base units of a `unit` (or is out of scale for its decimals), a price that is not a finite number.
 * Empty when it is. The API logs any finding as a fault (api/errors.ts), and tests check every refusal.
 */
export function detailsProblems(code: string, details: Record<string, unknown> | undefined): string[] {
  if (!details) return [];
  const allowed: readonly string[] = REQUEST_FIELD_CODES.has(code) ? [...SPEC_DETAIL_FIELDS, ...VALIDATION_FIELDS] : SPEC_DETAIL_FIELDS;
  const problems = Object.keys(details)
    .filter((k) => !allowed.includes(k))
    .map((k) => `${code}: details.${k} is not a field of the spec's Error.details`);
  const { minimum, unit, part, priceUsd, limitUsd } = details;
  if (unit !== undefined && unit !== "USDG" && unit !== "token") problems.push(`${code}: details.unit ${String(unit)} is neither USDG nor token`);
  if (minimum !== undefined) {
    if (typeof minimum !== "string" || !/^\d+$/.test(minimum)) problems.push(`${code}: details.minimum ${String(minimum)} is not whole base units`);
    else if (unit !== "USDG" && unit !== "token") problems.push(`${code}: details.minimum has no unit`);
    else if (BigInt(minimum) >= MAX_WHOLE_UNITS * 10n ** BigInt(UNIT_DECIMALS[unit]))
      problems.push(`${code}: details.minimum ${minimum} is out of scale for ${unit} (${UNIT_DECIMALS[unit]} decimals): a price labelled an amount?`);
  }
  if (part !== undefined && !(Number.isInteger(part) && (part as number) >= 1)) problems.push(`${code}: details.part ${String(part)} is not a part from 1`);
  for (const [name, value] of [
    ["priceUsd", priceUsd],
    ["limitUsd", limitUsd],
  ] as const)
    if (value !== undefined && !(typeof value === "number" && Number.isFinite(value))) problems.push(`${code}: details.${name} is not a finite number`);
  return problems;
}

export type ApiErrorOptions = {
  /** Seconds the client should wait before asking again (the faces say it: Retry-After, an MCP result's text). */
  retryAfterSeconds?: number;
  cause?: unknown;
};

/** An answer with an error code from the catalog. Throw it from any handler or middleware. */
export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  override name = "ApiError";
  readonly code: C;
  readonly details: ErrorDetails | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: C, message?: string, details?: ErrorDetails, options?: ApiErrorOptions) {
    super(message ?? errorCatalog[code].message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/**
 * 429 RATE_LIMITED for a client past a bounded share (sign requests, finder runs), with the wait: the
 * seconds from `now` until `frees` (when its oldest entry leaves the share), at least 1. `message` gets the wait.
 */
export function rateLimitedUntil(now: Date, frees: Date | null, message: (waitSeconds: number) => string): ApiError<"RATE_LIMITED"> {
  const wait = Math.max(1, Math.ceil(((frees?.getTime() ?? now.getTime()) - now.getTime()) / 1000));
  return new ApiError("RATE_LIMITED", message(wait), undefined, { retryAfterSeconds: wait });
}
