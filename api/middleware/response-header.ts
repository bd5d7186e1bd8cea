// Headers every answer carries (the request id, CORS), set straight on Node's ServerResponse when
// the app runs under @hono/node-server: `writeHead` merges them into whatever answer the route
// returns. Through `c.header()` each one costs a WHATWG Headers write (validation, normalisation,
// sorting) and a copy on every request. Without a Node response (`app.request` in tests, other
// runtimes) it falls back to `c.header()`.
import type { Context } from "hono";
import type { ServerResponse } from "node:http";

export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === "function" && !outgoing.headersSent) outgoing.setHeader(name, value);
  else c.header(name, value);
}
