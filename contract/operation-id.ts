// The one home of an operation's name: the served document's operationId (contract/openapi.ts), the MCP
// tool's name (mcp/tools.ts) and the typed client's operation names (client/agent-client.ts) all come
// from here. Pure, no imports: the client takes it at run time.

/**
 * The operationId of a route, made from its path under /v1 (or /v1/agent): path words joined by `_`, a
 * path parameter kept only last. `GET /v1/agent/vaults/{vault}/prices` → `vaults_prices`;
 * `GET /v1/agent/vaults/{vault}` → `vaults_vault`; `POST /v1/agent/prepare/vault-deposit` →
 * `prepare_vault_deposit`; `GET /v1/tokens` → `tokens`.
 */
export function operationIdOf(method: string, path: string): string {
  const segments = path
    .replace(/^\/v1(\/agent)?\//, "")
    .split("/")
    .filter(Boolean);
  const words = segments.map((s, i) => (s.startsWith("{") ? (i === segments.length - 1 ? s.slice(1, -1) : "") : s)).filter(Boolean);
  return (
    words
      .join("_")
      .replace(/[^A-Za-z0-9_]+/g, "_")
      .slice(0, 60) || method.toLowerCase()
  );
}
