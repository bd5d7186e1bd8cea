// Structured JSON logs, one line per event, pino-shaped (`logger.info({fields}, "message")`), so
// pino can replace this without touching callers. Lines go to stdout (stderr for warn and up).

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
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return v.toString();
    if (v instanceof Error) return { name: v.name, message: v.message, stack: v.stack, code: (v as { code?: unknown }).code };
    return v;
  });
}

export function createLogger(parameters: CreateLoggerParameters = {}): Logger {
  const { level = "info", base = {}, write = defaultWrite } = parameters;
  const min = level === "silent" ? Infinity : LOG_LEVELS.indexOf(level);
  const make = (fields: Record<string, unknown>): Logger => {
    const logger = {
      child: (more: Record<string, unknown>) => make({ ...fields, ...more }),
      isLevelEnabled: (name: LogLevel) => LOG_LEVELS.indexOf(name) >= min,
    } as Logger;
    for (const [index, name] of LOG_LEVELS.entries()) {
      logger[name] =
        index < min ? () => {} : (extra, message) => write(safeJson({ level: name, time: new Date().toISOString(), ...fields, ...extra, msg: message }), name);
    }
    return logger;
  };
  return make(base);
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = createLogger({ level: "silent" });

const PINO_LEVELS: Record<number, LogLevel> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

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
