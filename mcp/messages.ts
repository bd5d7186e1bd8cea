// What /mcp checks in a JSON-RPC message before the SDK sees it: a tools/call's params (a protocol error,
// -32602). The SDK reports these as -32603 "Internal error"; they are the caller's mistake. Arguments the
// tool does not take are a tool error, answered by the tool (./server.ts).

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
export const idOf = (message: unknown) => (isObject(message) && (typeof message.id === "string" || typeof message.id === "number") ? message.id : null);

/**
 * Why a tools/call's params are not an object with a string `name` and object `arguments`, or undefined.
 * The SDK reports these as -32603 "Internal error" with its validator's dump; they are the caller's
 * mistake (-32602 Invalid params).
 */
function invalidToolCall(message: unknown): string | undefined {
  if (!isObject(message) || message.method !== "tools/call") return undefined;
  const params = message.params;
  if (!isObject(params)) return "Invalid params: tools/call takes params {name, arguments}";
  if (typeof params.name !== "string") return "Invalid params: params.name must be a tool name (string)";
  if (params.arguments !== undefined && !isObject(params.arguments)) return "Invalid params: params.arguments must be an object";
  return undefined;
}

/** Why `message` is refused -32602 Invalid params, or undefined when the SDK may take it. */
export const invalidParams = (message: unknown) => invalidToolCall(message);
