// adapters/logger.ts writes through pino: the line keeps the service's shape (level names, ISO time,
// base fields, then the call's fields, then msg), bigints as strings, errors as {name, message,
// stack, code}, warn and up apart from the rest, and pino's redact removes secrets.
import { describe, expect, it } from "vitest";
import { createLogger, type LogLevel } from "../../adapters/logger.js";

function capture(level: LogLevel | "silent" = "trace") {
  const lines: { line: string; level: LogLevel }[] = [];
  const logger = createLogger({ level, base: { service: "api" }, write: (line, lvl) => lines.push({ line, level: lvl }) });
  return { logger, lines };
}

describe("createLogger", () => {
  it("writes one JSON line: level name, ISO time, base fields, the fields, msg last", () => {
    const { logger, lines } = capture();
    logger.info({ requestId: "r1", status: 200 }, "request");
    expect(lines).toHaveLength(1);
    const { line, level } = lines[0]!;
    expect(level).toBe("info");
    expect(line).not.toContain("\n");
    expect(Object.keys(JSON.parse(line))).toEqual(["level", "time", "service", "requestId", "status", "msg"]);
    expect(JSON.parse(line)).toMatchObject({ level: "info", service: "api", requestId: "r1", status: 200, msg: "request" });
    expect(JSON.parse(line).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // No pid or hostname (pino's default base).
    expect(line).not.toMatch(/"pid"|"hostname"/);
  });

  it("names every level and hands it to write; drops levels below the minimum; silent writes nothing", () => {
    const { logger, lines } = capture("debug");
    for (const name of ["trace", "debug", "info", "warn", "error", "fatal"] as const) logger[name]({ n: name });
    expect(lines.map((l) => l.level)).toEqual(["debug", "info", "warn", "error", "fatal"]);
    expect(lines.map((l) => JSON.parse(l.line).level)).toEqual(["debug", "info", "warn", "error", "fatal"]);
    expect(logger.isLevelEnabled("trace")).toBe(false);
    expect(logger.isLevelEnabled("debug")).toBe(true);
    const silent = capture("silent");
    silent.logger.fatal({ a: 1 }, "x");
    expect(silent.lines).toEqual([]);
  });

  it("writes bigints as strings and errors as {name, message, stack, code}, under err or any key", () => {
    const { logger, lines } = capture();
    const error = Object.assign(new TypeError("boom"), { code: "E_BOOM" });
    logger.error({ err: error, nested: { amount: 10n ** 30n, cause: new Error("inner") }, list: [1n] }, "failed");
    const line = JSON.parse(lines[0]!.line);
    expect(line.err).toMatchObject({ name: "TypeError", message: "boom", code: "E_BOOM" });
    expect(line.err.stack).toContain("TypeError: boom");
    expect(line.nested).toMatchObject({ amount: (10n ** 30n).toString(), cause: { name: "Error", message: "inner" } });
    expect(line.list).toEqual(["1"]);
  });

  it("child lines carry the child's fields after the base fields; a call's field wins", () => {
    const { logger, lines } = capture();
    logger.child({ queue: "prepare", job: "1" }).warn({ job: "2" }, "retry");
    const line = JSON.parse(lines[0]!.line);
    expect(line).toMatchObject({ level: "warn", service: "api", queue: "prepare", job: "2", msg: "retry" });
  });

  it("redacts a path's query and sign-link secret, and credentials or signatures wherever they are", () => {
    const { logger, lines } = capture();
    logger.info({ path: "/v1/agent/sign-requests/s3cr3t-id/status?cursor=abc" }, "request");
    logger.info({ path: "/sign/another-secret" }, "request");
    logger.info({ path: `/v1/agent/${"x".repeat(300)}` }, "request");
    logger.warn({ authorization: "Bearer tok", headers: { authorization: "Bearer tok2", cookie: "c=1" }, body: { signature: "0xsig" } }, "odd");
    const parsed = lines.map((l) => JSON.parse(l.line));
    expect(parsed[0].path).toBe("/v1/agent/sign-requests/:id/status");
    expect(parsed[1].path).toBe("/sign/:id");
    expect(parsed[2].path).toHaveLength(201);
    expect(parsed[3]).toMatchObject({
      authorization: "[Redacted]",
      headers: { authorization: "[Redacted]", cookie: "[Redacted]" },
      body: { signature: "[Redacted]" },
    });
    const text = lines.map((l) => l.line).join("\n");
    for (const secret of ["s3cr3t-id", "cursor=abc", "another-secret", "Bearer tok", "0xsig"]) expect(text).not.toContain(secret);
  });

  it("writes the message verbatim (no printf interpolation)", () => {
    const { logger, lines } = capture();
    logger.info({}, "100% done %s");
    expect(JSON.parse(lines[0]!.line).msg).toBe("100% done %s");
  });
});
