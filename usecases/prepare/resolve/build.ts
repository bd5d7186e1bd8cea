// Running a pure builder (domain/bundles) from a resolver: its BundleError becomes the catalog's ApiError,
// named in the request's own fields (../builder-fields.ts), and a body field's own problem is 400 INVALID_REQUEST.
import { BundleError } from "../../../domain/bundles/index.js";
import { ApiError, type ErrorDetails } from "../../../domain/errors.js";
import type { PrepareKind } from "../../../contract/prepare-kinds.js";
import { requestField } from "../builder-fields.js";

export function invalid(field: string, message: string): ApiError {
  return new ApiError("INVALID_REQUEST", `${field}: ${message}`, { field, issues: [{ field, message }] });
}

/** The last segment of a path without its index: `legs[0].buyPriceX18` → `buyPriceX18`. */
const leaf = (path: string) =>
  path
    .split(".")
    .at(-1)!
    .replace(/\[\d*\]$/, "");

/**
 * A builder's refusal as the catalog answer, in the request's fields: an INVALID_REQUEST names the body
 * field (details {field, issues}) and says it in the body's words; any other code keeps its spec details
 * with the body's names in its words. A refusal of a parameter the service supplied is 500 INTERNAL.
 */
export function fromBundleError(kind: PrepareKind, error: unknown): never {
  if (!(error instanceof BundleError)) throw error;
  const details: ErrorDetails | undefined = error.details === undefined ? undefined : { ...error.details };
  const named = error.field === undefined ? undefined : requestField(kind, error.field);
  if (named === undefined || error.field === undefined) throw new ApiError(error.code, error.message, details);
  if (named === null) {
    if (error.code === "INVALID_REQUEST") throw new ApiError("INTERNAL", undefined, undefined, { cause: error });
    throw new ApiError(error.code, error.message, details);
  }
  const { field } = named;
  // "part 2: sellPriceX18 must be above buyPriceX18" → "sellPrice must be above buyPrice" (the field names the part).
  const words =
    named.message ??
    error.message
      .replace(/^(part|order|leg) \d+: /, "")
      .replaceAll(error.field, field)
      .replace(new RegExp(`\\b${leaf(error.field)}\\b`, "g"), leaf(field))
      .replace(/\b(buy|sell)PriceX18\b/g, "$1Price");
  const message = words.startsWith(`${field} `) ? words.slice(field.length + 1) : words;
  if (error.code === "INVALID_REQUEST") throw new ApiError("INVALID_REQUEST", `${field}: ${message}`, { ...details, field, issues: [{ field, message }] });
  throw new ApiError(error.code, `${field}: ${message}`, details);
}

/** Runs the pure builder of a `kind` prepare, turning its BundleError into an ApiError. */
export function build<T>(kind: PrepareKind, run: () => T): T {
  try {
    return run();
  } catch (error) {
    return fromBundleError(kind, error);
  }
}
