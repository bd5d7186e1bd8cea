// The report-card session as operations declare it: `Authorization: Bearer <SESSION_TOKEN>` from the
// session exchange. The OpenAPI security of an operation, and so its MCP tool's `sessionToken`, come from here.

/** An operation's session: required, or optional (it answers without one too). */
export const sessionSecurity = {
  required: [{ session: [] }] as Record<string, string[]>[],
  /** Beside no security at all ({}): the route answers without one too. */
  optional: [{}, { session: [] }] as Record<string, string[]>[],
};

/** The OpenAPI security scheme of the session (registered by the report-card routes). */
export const SESSION_SECURITY_SCHEME = {
  type: "http" as const,
  scheme: "bearer",
  description: "The report-card session token from POST /v1/agent/report-card/session (valid one hour).",
};
