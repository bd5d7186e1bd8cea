// Running a pure builder (domain/bundles) from a resolver: its BundleError becomes the catalog's ApiError,
// and a body field's own problem is 400 INVALID_REQUEST.
import { BundleError } from "../../../domain/bundles/index.js";
import { ApiError } from "../../../domain/errors.js";

export function invalid(field: string, message: string): ApiError {
  return new ApiError("INVALID_REQUEST", `${field}: ${message}`, { field, issues: [{ field, message }] });
}

/** A builder's refusal as the catalog answer (the codes are the catalog's already). */
export function fromBundleError(error: unknown): never {
  if (error instanceof BundleError) {
    const details = error.details === undefined ? undefined : { ...error.details };
    throw new ApiError(error.code, error.message, details);
  }
  throw error;
}

/** Runs a pure builder, turning its BundleError into an ApiError. */
export function build<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    return fromBundleError(error);
  }
}
