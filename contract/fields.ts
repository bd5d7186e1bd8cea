// Shared zod pieces of requests and answers. Their messages are what INVALID_REQUEST says after
// the field name ("owner: must be an address (0x followed by 40 hex characters)").
import { z } from "@hono/zod-openapi";
import { errorCatalog, errorCodes, type ErrorCode } from "../domain/errors.js";
import { codesByStatus } from "./error-statuses.js";

export const Address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, { error: "must be an address (0x followed by 40 hex characters)" })
  .openapi({ description: "An address: 0x followed by 40 hex characters (answers are checksummed)", example: "0x5FbDB2315678afecb367f032d93F642f64180aa3" });

export const Amount = z
  .string()
  .max(80, { error: "must be at most 80 characters long" })
  .regex(/^\d+(\.\d+)?$/, { error: "must be a decimal amount (digits, optionally a dot and digits)" })
  .openapi({ description: "A decimal amount: digits, optionally a dot and digits", example: "125.5" });

export const AgentTag = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,39}$/, { error: "must be an agent tag (a-z or 0-9 first, then up to 39 of a-z 0-9 . _ -)" })
  .openapi({ description: "Groups actions on the owner's report card; grants nothing", example: "my-agent.v2" });

export const Timestamp = z.string().openapi({ description: "ISO 8601 in UTC", example: "2025-01-01T00:00:00.000Z" });

/** The success envelope of an answer. */
export const Envelope = <T extends z.ZodType>(data: T) => z.object({ data });

export const ErrorDetails = z
  .object({
    part: z.number().int().min(1).optional().openapi({ description: "The part, from 1" }),
    minimum: z.string().optional().openapi({
      description: "Exact minimum amount in base units of `unit` (never a price: a price bound is priceUsd and limitUsd)",
    }),
    unit: z.enum(["USDG", "token"]).optional(),
    priceUsd: z.number().optional().openapi({ description: "USDG per whole token: the price now (WRONG_SIDE), or the part's line that broke a bound" }),
    limitUsd: z.number().optional().openapi({ description: "The limit the price broke, USDG per whole token" }),
    token: z.string().optional().openapi({ description: "The token named" }),
    field: z.string().optional().openapi({ description: "INVALID_REQUEST and RECEIVER_NOT_OWNER: the first field at fault" }),
    issues: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: "INVALID_REQUEST: every problem found" }),
  })
  .openapi("ErrorDetails");

export const ErrorBody = z
  .object({
    error: z.string().openapi({ description: "What went wrong, in words" }),
    code: z.enum(errorCodes as [ErrorCode, ...ErrorCode[]]).openapi({ description: "A code of the error catalog" }),
    details: ErrorDetails.optional(),
  })
  .openapi("Error");

/** Codes any read or prepare route can answer (the spec's 429 is RATE_LIMITED or BUSY on every one). */
export const COMMON_ERROR_CODES = ["INVALID_REQUEST", "RATE_LIMITED", "BUSY", "INTERNAL", "UNAVAILABLE"] as const satisfies readonly ErrorCode[];

type ErrorResponse = {
  description: string;
  content: { "application/json": { schema: typeof ErrorBody } };
  headers?: Record<string, { description: string; schema: { type: "integer" | "string" } }>;
};

/** The headers of a 429 (api/middleware/rate-limit.ts); every other limited answer carries the last two as well. */
export const RATE_LIMIT_HEADERS = {
  "Retry-After": { description: "Seconds to wait", schema: { type: "integer" as const } },
  "RateLimit-Policy": {
    description:
      'The limits that apply (draft-ietf-httpapi-ratelimit-headers), e.g. `"client";q=120;w=60` per client address, and `, "session";q=120;w=60` with a bearer token',
    schema: { type: "string" as const },
  },
  RateLimit: {
    description: 'What is left of each: `"client";r=57;t=34` (r requests left, t seconds to the window\'s end)',
    schema: { type: "string" as const },
  },
};

/**
 * The OpenAPI `responses` entries of these codes plus the common ones (400, 429, 500, 503),
 * grouped by status, each described from the catalog: spread it into a route's `responses`.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, ErrorResponse> {
  const responses: Record<number, ErrorResponse> = {};
  for (const [status, group] of codesByStatus([...COMMON_ERROR_CODES, ...codes])) {
    const lines = group.map((code) => `\`${code}\`: ${errorCatalog[code].message} (${errorCatalog[code].when})`);
    responses[status] = {
      description: lines.join("\n\n"),
      content: { "application/json": { schema: ErrorBody } },
      ...(status === 429 ? { headers: RATE_LIMIT_HEADERS } : {}),
      // UNAVAILABLE while the index is built and SCAN_PREPARING say when to ask again.
      ...(status === 503
        ? {
            headers: {
              "Retry-After": { description: "Seconds to wait (while the index is built, or a scan is prepared)", schema: { type: "integer" as const } },
            },
          }
        : {}),
    };
  }
  return responses;
}

/** The OpenAPI entry of a success answer `{data}`. */
export function okResponse<T extends z.ZodType>(data: T, description: string) {
  return { description, content: { "application/json": { schema: Envelope(data) } } };
}

/**
 * The fields of `value` that `schema` (an object schema, often loose: the spec allows extra fields)
 * declares: what a route hands to a job or pipeline, so nothing it did not validate is queued.
 */
export function knownFields<T extends object>(schema: { shape: Record<string, unknown> }, value: T): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) if (key in value) out[key] = (value as Record<string, unknown>)[key];
  return out as T;
}
