// A raw JSON-RPC call to a devnet node, for the methods viem's clients do not wrap (evm_snapshot,
// evm_revert, evm_mine, hardhat_*): its result, or an Error naming the method and the node's message.

export async function jsonRpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
