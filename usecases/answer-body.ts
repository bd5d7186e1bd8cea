// Success bodies as JSON: `{data}` with bigints as decimal strings. The API's envelope (api/envelope.ts)
// writes every answer with these, and the read cache keeps answers as this text.

function replacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** JSON.stringify that writes bigints as decimal strings. */
export function stringify(value: unknown): string {
  return JSON.stringify(value, replacer);
}

/** `{data}` as JSON, byte for byte what the envelope's `ok()` answers for the same data. */
export function answerBody(data: unknown): string {
  return stringify({ data });
}
