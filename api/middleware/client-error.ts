// Requests that Node's HTTP parser refuses before the app sees them (a raw non-ASCII byte in the
// path, a request line or headers over Node's 16 KiB, bytes that are not HTTP) would get Node's bare
// 400 / 431 with no body. They get the catalog's envelope instead, 400 INVALID_REQUEST, and the
// connection closes (the parser cannot resync on it). Not middleware: a listener of the server.
import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { errorStatus } from "../../contract/error-statuses.js";

type ParserError = Error & { code?: string };

/** The bytes of the answer to a refused request (exported for its test). */
export function parserErrorResponse(error: ParserError): string {
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const body = JSON.stringify({
    error: tooLarge ? "The request line and headers are too large (at most 16 KiB)" : "Malformed HTTP request (a URL must be percent-encoded ASCII)",
    code: "INVALID_REQUEST",
  });
  const status = errorStatus.INVALID_REQUEST;
  return `HTTP/1.1 ${status} Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Answers parser errors of `server` in the envelope; other client errors close the socket as Node does. */
export function answerParserErrors(server: Pick<Server, "on">): void {
  server.on("clientError", (error: ParserError, socket: Duplex) => {
    // HPE_* are parser refusals; a reset or a timed-out socket has nobody to answer.
    if (!error.code?.startsWith("HPE_") || !socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    socket.end(parserErrorResponse(error));
  });
}
