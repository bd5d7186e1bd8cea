// Validation as middleware: every route's zod schemas run before its handler, and any failure is
// 400 INVALID_REQUEST naming the field, e.g. "owner: must be an address (0x followed by 40 hex
// characters)", with details {field, issues}. api/create-router.ts gives route files an app with
// this hook already set.
import type { z } from "zod";
import { ApiError } from "../domain/errors.js";

type Issue = z.core.$ZodIssue;

const TARGET_NAMES: Record<string, string> = { json: "body", form: "body", query: "query", param: "path", header: "header", cookie: "cookie" };

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  bigint: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  date: "a date",
};

/** `tokens[1].weightPct` from ["tokens", 1, "weightPct"]; the target's name for the root. */
export function fieldName(path: readonly PropertyKey[], target = "json"): string {
  if (path.length === 0) return TARGET_NAMES[target] ?? target;
  return path.map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`)).join("");
}

function bound(issue: { minimum?: unknown; maximum?: unknown; inclusive?: boolean; origin?: string }, small: boolean): string {
  const value = String(small ? issue.minimum : issue.maximum);
  const exclusive = issue.inclusive === false;
  const relation = small ? (exclusive ? "more than" : "at least") : exclusive ? "less than" : "at most";
  switch (issue.origin) {
    case "array":
    case "set":
      return `must have ${relation} ${value} items`;
    case "string":
      return `must be ${relation} ${value} characters long`;
    default:
      return `must be ${relation} ${value}`;
  }
}

/** A message in our words for zod's default messages; a schema's own message is kept. */
export function issueMessage(issue: Issue): string {
  const own =
    !/^(Invalid input|Invalid option|Invalid string|Invalid number|Too small|Too big|Unrecognized key|Invalid element|Invalid key|Invalid value)/.test(
      issue.message,
    );
  if (own) return issue.message;
  switch (issue.code) {
    case "invalid_type":
      if (/received undefined$/.test(issue.message)) return "is required";
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      return bound(issue, true);
    case "too_big":
      return bound(issue, false);
    case "unrecognized_keys":
      return "is not allowed";
    case "invalid_format":
      return `must be ${issue.format === "regex" ? `in the form ${issue.pattern ?? "required"}` : `a valid ${issue.format}`}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return "is invalid";
  }
}

/** Flattens zod issues into {field, message} pairs (an unrecognized key names the key itself). */
export function describeIssues(issues: readonly Issue[], target = "json"): { field: string; message: string }[] {
  return issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ field: fieldName([...issue.path, key], target), message: "is not allowed" }))
      : [{ field: fieldName(issue.path, target), message: issueMessage(issue) }],
  );
}

/** The ApiError for a failed validation. */
export function validationError(error: z.ZodError, target = "json"): ApiError<"INVALID_REQUEST"> {
  const issues = describeIssues(error.issues, target);
  const first = issues[0] ?? { field: TARGET_NAMES[target] ?? target, message: "is invalid" };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new ApiError("INVALID_REQUEST", `${first.field}: ${first.message}${more}`, { field: first.field, issues });
}

/** The defaultHook of every OpenAPIHono of the service. */
export const validationHook = (result: { target: string; success: boolean; error?: z.ZodError }): void => {
  if (!result.success && result.error) throw validationError(result.error, result.target);
};
