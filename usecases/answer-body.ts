// Success bodies as JSON: `{data}` with bigints as decimal strings. The API's envelope (api/envelope.ts)
// writes every answer with these, and the read cache keeps answers as this text.

function replacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/**
 * JSON.stringify that writes bigints as decimal strings. Without a replacer first: V8's fast path, a
 * third less CPU on an account-sized answer, which carries amounts as strings already. Only a value that
 * holds a bigint (JSON.stringify throws a TypeError at the first) is written again through the replacer.
 */
export function stringify(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof TypeError) return JSON.stringify(value, replacer);
    throw error;
  }
}

/** `{data}` as JSON, byte for byte what the envelope's `ok()` answers for the same data. */
export function answerBody(data: unknown): string {
  return stringify({ data });
}
