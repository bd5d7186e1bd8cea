// The shapes every bundle builder shares: a step (one unsigned call), a bundle (the steps in order with
// their kind and params) and the typed error a builder refuses with. Pure: no I/O.
import type { Address, Hex } from "viem";
import type { ErrorCode, ErrorDetails } from "../errors.js";

/** One unsigned call the owner's wallet sends. The service never sends value: it is always 0. */
export type Step = { to: Address; data: Hex; value: 0n };

/**
 * What a builder answers: the steps in the order they must be sent (approvals first), the bundle kind,
 * and `params`, the inputs of the calls as the answer shows them (amounts as decimal strings in base
 * units, addresses checksummed). The API adds its own fields (quotes, slippage, expected amounts). The
 * bundle kinds are the products' (BundleKind, domain/products/index.ts).
 */
export type Bundle<kind extends string = string> = {
  kind: kind;
  steps: Step[];
  params: Record<string, unknown>;
};

/** The spec's vault families. */
export type VaultFamily = "merged" | "up" | "stock-token";

/** A minimal aggregator route for a call: the aggregator it is for (`to`) and its calldata. */
export type RouteCalldata = { to: Address; data: Hex };

/**
 * The refusal codes a builder can answer, all from the error catalog (domain/errors.ts), so the API
 * maps them to statuses and messages without a table of its own.
 */
export type BundleErrorCode = Extract<
  ErrorCode,
  | "INVALID_REQUEST"
  | "AMOUNT_TOO_SMALL"
  | "SAME_TOKEN"
  | "NATIVE_ETH_IN"
  | "RECEIVER_NOT_OWNER"
  | "ROUTE_TOO_LARGE"
  | "NO_REFERENCE"
  | "WRONG_SIDE"
  | "FIRST_TOO_SMALL"
  | "FOLLOW_UP_TOO_SMALL"
  | "NO_TRIP_HEADROOM"
  | "TOKEN_COUNT"
  | "DUPLICATE_TOKEN"
  | "WEIGHT_TOO_SMALL"
  | "WEIGHTS_SUM"
  | "MAKE_FEE"
>;

/** The spec's Error.details fields a builder fills (`part` counts from 1). */
export type BundleErrorDetails = Pick<ErrorDetails, "part" | "minimum" | "unit" | "priceUsd" | "limitUsd" | "token">;

/**
 * A builder's refusal, and the only error every builder throws: `code` is the catalog code the API answers with,
 * `details` the spec's details, `field` the builder's parameter at fault (`legs[2].amount`), which the prepare
 * pipeline names as the request's own field (usecases/prepare/builder-fields.ts).
 */
export class BundleError extends Error {
  override name = "BundleError";
  constructor(
    readonly code: BundleErrorCode,
    message: string,
    readonly details?: BundleErrorDetails,
    readonly field?: string,
  ) {
    super(message);
  }
}
