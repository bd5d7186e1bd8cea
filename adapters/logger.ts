// Structured JSON logs, one line per event, written by pino (`logger.info({fields}, "message")`).
// The line keeps this service's shape: {"level":"info","time":"<ISO>",...base,...fields,"msg":"…"}
// (level names, not pino's numbers; ISO time; no pid/hostname), bigints as strings and errors as
// {name, message, stack, code}. Lines go to stdout (stderr for warn and up).
// Secrets are removed by pino's `redact` (REDACT below), whatever the caller logs.
import { pino, stdTimeFunctions, type DestinationStream, type redactOptions } from "pino";

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFn = (fields: Record<string, unknown>, message?: string) => void;
export type Logger = Record<LogLevel, LogFn> & {
  child(fields: Record<string, unknown>): Logger;
  /** Whether lines of `level` are written (as pino's): callers on hot paths skip building fields that would be dropped. */
  isLevelEnabled(level: LogLevel): boolean;
};

export type CreateLoggerParameters = {
  /** Lowest level written; "silent" writes nothing (default "info"). */
  level?: LogLevel | "silent";
  /** Fields on every line (e.g. {service: "api"}). */
  base?: Record<string, unknown>;
  /** Where lines go (default: stdout below warn, stderr from warn). */
  write?: (line: string, level: LogLevel) => void;
};

function defaultWrite(line: string, level: LogLevel): void {
  (LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf("warn") ? process.stderr : process.stdout).write(`${line}\n`);
}

function safeJson(value: Record<string, unknown>): string {
  return JSON.stringify(value, (_key, v: unknown) => plainValue(v));
}

const errorFields = (v: Error) => ({ name: v.name, message: v.message, stack: v.stack, code: (v as { code?: unknown }).code });

function plainValue(v: unknown): unknown {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Error) return errorFields(v);
  return v;
}

/** The fields with bigints as strings and errors as {name, message, stack, code}, at any depth; copied only where one is found. */
function plainFields<T>(value: T, depth = 0): T {
  if (typeof value !== "object" || value === null || depth > 8) return plainValue(value) as T;
  if (value instanceof Error) return errorFields(value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const plain = plainFields(item, depth + 1);
      if (plain !== item) (copy ??= [...value])[i] = plain;
    });
    return (copy ?? value) as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    const plain = plainFields(item, depth + 1);
    if (plain !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = plain;
  }
  return (copy ?? value) as T;
}

const SECRET_SEGMENTS: [RegExp, string][] = [
  [/\/sign-requests\/[^/]+/g, "/sign-requests/:id"],
  [/\/sign\/[^/]+/g, "/sign/:id"],
];

/** A request path without its query (cursors, tokens) and with the secret segment of sign links (`/sign-requests/{id}`, `/sign/{id}`) as `:id`, at most 200 characters. */
function redactPath(path: string): string {
  const query = path.indexOf("?");
  let redacted = query < 0 ? path : path.slice(0, query);
  // Most paths hold no sign link: skip the replacements for them.
  if (redacted.includes("/sign")) for (const [pattern, replacement] of SECRET_SEGMENTS) redacted = redacted.replace(pattern, replacement);
  // Keep log lines short and printable whatever a client sends.
  return redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted;
}

/**
 * What is never written (pino's `redact`): a request `path` keeps its route but loses its query and
 * sign-link secret; credentials and signatures are replaced by "[Redacted]" wherever a caller puts them.
 */
const REDACT: redactOptions = {
  paths: ["path", "authorization", "cookie", "signature", "headers.authorization", "headers.cookie", "*.authorization", "*.signature"],
  censor: (value: unknown, path: string[]) => (path.length === 1 && path[0] === "path" && typeof value === "string" ? redactPath(value) : "[Redacted]"),
};

const PINO_LEVELS: Record<number, LogLevel> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** A pino destination handing each line (without its newline) and its level to `write`: pino sets `lastLevel` on a stream that asks for metadata. */
function destination(write: (line: string, level: LogLevel) => void): DestinationStream {
  const stream = {
    [Symbol.for("pino.metadata")]: true,
    lastLevel: 30,
    write(line: string) {
      write(line.endsWith("\n") ? line.slice(0, -1) : line, PINO_LEVELS[stream.lastLevel] ?? "info");
    },
  };
  return stream;
}

export function createLogger(parameters: CreateLoggerParameters = {}): Logger {
  const { level = "info", base = {}, write = defaultWrite } = parameters;
  return pino(
    {
      level,
      base: plainFields(base),
      messageKey: "msg",
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), bindings: (bindings) => plainFields(bindings), log: (fields) => plainFields(fields) },
      // Errors are made plain by `formatters.log` (pino's own err serializer would rename name to type).
      serializers: { err: (value: unknown) => value },
      redact: REDACT,
    },
    destination(write),
  ) as unknown as Logger;
}

/**
 * One line of Ponder's `--log-format json` (pino's numbers: level 30, time in ms) in this logger's shape
 * (level "info", ISO time, `base` fields), so every process's lines read alike. A line that is not JSON
 * (a library printing on its own) becomes a line of `fallback` level holding it.
 */
export function normalizeForeignLine(line: string, base: Record<string, unknown>, fallback: LogLevel): { level: LogLevel; line: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    // not JSON
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { level: fallback, line: safeJson({ level: fallback, time: new Date().toISOString(), ...base, msg: line }) };
  }
  const { level, time, msg, ...rest } = parsed as Record<string, unknown>;
  const name = typeof level === "number" ? (PINO_LEVELS[level] ?? fallback) : LOG_LEVELS.includes(level as LogLevel) ? (level as LogLevel) : fallback;
  const iso = typeof time === "number" ? new Date(time).toISOString() : typeof time === "string" ? time : new Date().toISOString();
  return { level: name, line: safeJson({ level: name, time: iso, ...base, ...rest, msg }) };
}
