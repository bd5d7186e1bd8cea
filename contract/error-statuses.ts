// The HTTP status each error code is answered with: the wire's half of the error catalog. domain/errors.ts
// names the codes, their messages and when each happens, with no HTTP in it; the faces (api/envelope.ts, the
// parser's refusals) answer a code with its status here, and the OpenAPI document, skill.md and llms.txt
// group codes by it.
import { errorCatalog, type ErrorCode } from "../domain/errors.js";

export type ErrorStatus = 400 | 401 | 402 | 404 | 409 | 422 | 429 | 500 | 503;

export const errorStatus = {
  // 400
  INVALID_REQUEST: 400,
  // 401
  SESSION_REQUIRED: 401,
  CHALLENGE_EXPIRED: 401,
  BAD_SIGNATURE: 401,
  // 402
  PAYMENT_REQUIRED: 402,
  // 404
  NOT_FOUND: 404,
  NOT_AGENT_VAULT: 404,
  CURSOR_NOT_FOUND: 404,
  REPORT_CARDS_DISABLED: 404,
  ACCOUNTS_DISABLED: 404,
  UNKNOWN_BASKET: 404,
  // 409
  SWAP_CONTRACTS_CHANGED: 409,
  // 422
  NO_CANDLES: 422,
  GAP_TOO_TIGHT: 422,
  UNKNOWN_TOKEN: 422,
  NOT_A_TOKEN: 422,
  SAME_TOKEN: 422,
  NATIVE_ETH_IN: 422,
  NATIVE_ETH_TOKEN: 422,
  SWAP_NO_ROUTE: 422,
  SWAP_PAUSED: 422,
  DUPLICATE_TOKEN: 422,
  TOKEN_COUNT: 422,
  WEIGHTS_PARTIAL: 422,
  WEIGHTS_SUM: 422,
  WEIGHT_TOO_SMALL: 422,
  MAKE_FEE: 422,
  NO_ANCHOR: 422,
  DEPOSITS_CLOSED: 422,
  DEPOSITS_PAUSED: 422,
  VAULT_FULL: 422,
  CAPACITY: 422,
  NOT_LISTED: 422,
  MARKET_NOT_OPEN: 422,
  WRONG_SIDE: 422,
  NO_REFERENCE: 422,
  FIRST_TOO_SMALL: 422,
  FOLLOW_UP_TOO_SMALL: 422,
  NO_TRIP_HEADROOM: 422,
  BAD_TOKEN: 422,
  BASKET_SELL_ONLY: 422,
  BASKET_PAUSED: 422,
  TOKEN_PAUSED: 422,
  TOKEN_FROZEN: 422,
  TOKEN_SHORTFALL: 422,
  AMOUNT_TOO_SMALL: 422,
  BASKET_NO_ROUTE: 422,
  PRICE_IMPACT_TOO_HIGH: 422,
  LEG_MINIMUM_TOO_LOW: 422,
  ROUTE_TOO_LARGE: 422,
  NOTHING_TO_SELL: 422,
  SELL_REFUSED: 422,
  BAD_DEPOSIT_TOKEN: 422,
  NOT_ON_TRADE_LIST: 422,
  BAD_NAME: 422,
  BAD_SYMBOL: 422,
  RESERVED_SYMBOL: 422,
  NAME_NOT_ALLOWED: 422,
  NAME_IS_TOKEN: 422,
  SYMBOL_NOT_ALLOWED: 422,
  SYMBOL_IS_TOKEN: 422,
  SYMBOL_TAKEN: 422,
  DEPOSIT_TOO_SMALL: 422,
  MAKE_REFUSED: 422,
  RECEIVER_NOT_OWNER: 422,
  NOT_YOUR_REQUEST: 422,
  REQUEST_NOT_PENDING: 422,
  NOTHING_TO_WITHDRAW: 422,
  BELOW_QUEUE_MINIMUM: 422,
  NOT_YOUR_ORDER: 422,
  ORDER_CLOSED: 422,
  NOTHING_TO_CLAIM: 422,
  NOTHING_FILLED: 422,
  NOT_YOUR_GRID: 422,
  GRID_CLOSED: 422,
  NOT_YOUR_LADDER: 422,
  LADDER_CLOSED: 422,
  NOTHING_TO_COLLECT: 422,
  NO_AGENT_ACCOUNT: 422,
  ACCOUNT_FLOOR: 422,
  ACCOUNT_CEILING: 422,
  ACCOUNT_BUDGET: 422,
  ACCOUNT_FEE_CAP: 422,
  ACCOUNT_SPREAD: 422,
  SIMULATION_FAILED: 422,
  // 429
  RATE_LIMITED: 429,
  BUSY: 429,
  // 500
  INTERNAL: 500,
  // 503
  UNAVAILABLE: 503,
  SCAN_PREPARING: 503,
  NOT_DEPLOYED: 503,
  ZAP_UNAVAILABLE: 503,
  AGGREGATOR_CHANGED: 503,
  MAKER_NOT_DEPLOYED: 503,
  TRADE_LIST_LOADING: 503,
  SWAP_UNAVAILABLE: 503,
} as const satisfies Record<ErrorCode, ErrorStatus>;

export type ErrorStatusOf<C extends ErrorCode> = (typeof errorStatus)[C];

/** Codes grouped by status, statuses ascending, codes in catalog order. */
export function codesByStatus(codes: readonly ErrorCode[]): Map<ErrorStatus, ErrorCode[]> {
  const groups = new Map<ErrorStatus, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = errorStatus[code];
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}

/** Every code as documented at the wire: its status, message and when it happens (skill.md, llms.txt). */
export const errorAnswers: { readonly [C in ErrorCode]: { status: ErrorStatusOf<C>; message: string; when: string } } = Object.fromEntries(
  Object.entries(errorCatalog).map(([code, entry]) => [code, { status: errorStatus[code as ErrorCode], ...entry }]),
) as never;
