// Revert reasons are read from every form nodes answer a revert in: the error's `data` as a string (geth,
// Anvil), nested in an object (Hardhat's JSON-RPC -32603 `{message, data}`), down a `cause` chain, or only in
// the message text (Hardhat's "(return data: 0x…)"). Errors made as viem makes them from a node's answer.
import { CallExecutionError, encodeErrorResult, InternalRpcError, RpcRequestError, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { testTokenAbi } from "../../../abis/index.js";
import { revertData, revertReason } from "../../../adapters/chain/simulate.js";

const holder = "0x000000000000000000000000000000000000bEEF";
const data = encodeErrorResult({ abi: testTokenAbi, errorName: "ERC20InsufficientBalance", args: [holder, 60_000_000n, 70_000_000n] });
const reason = `ERC20InsufficientBalance ${holder} 60000000 70000000`;
const hardhatText = `Error: VM Exception while processing transaction: reverted with an unrecognized custom error (return data: ${data})`;

/** As viem's http transport and `call` wrap a JSON-RPC error answer. */
function fromNode(error: { code: number; message: string; data?: unknown }): CallExecutionError {
  const rpc = new RpcRequestError({ body: { method: "eth_call" }, error, url: "http://127.0.0.1:8545" });
  return new CallExecutionError(new InternalRpcError(rpc), { account: undefined, to: holder, data: "0xa9059cbb" as Hex });
}

describe("revertReason", () => {
  it("reads Hardhat's -32603 with the data nested in {message, data}", () => {
    const error = fromNode({ code: -32603, message: hardhatText, data: { message: hardhatText, data } });
    expect(error.shortMessage).toBe("An internal error was received.");
    expect(revertData(error)).toBe(data);
    expect(revertReason(error)).toBe(reason);
  });

  it("reads the data when it is only in the message text", () => {
    expect(revertReason(fromNode({ code: -32603, message: hardhatText }))).toBe(reason);
  });

  it("reads a string `data` (geth, Anvil) and an `originalError` (some hosted RPCs)", () => {
    expect(revertReason(fromNode({ code: 3, message: "execution reverted", data }))).toBe(reason);
    expect(revertReason(fromNode({ code: -32603, message: "internal", data: { originalError: { code: 3, data, message: "execution reverted" } } }))).toBe(
      reason,
    );
  });

  it("reads a plain Error's cause chain", () => {
    expect(revertReason(new Error("outer", { cause: Object.assign(new Error("inner"), { data }) }))).toBe(reason);
  });

  it("never takes viem's printed calldata for revert data; unknown data is named by its selector", () => {
    const error = fromNode({ code: -32603, message: "Error: VM Exception while processing transaction: reverted without a reason" });
    expect(error.message).toContain("data:");
    expect(revertData(error)).toBeUndefined();
    expect(revertReason(fromNode({ code: -32603, message: "x", data: "0xdeadbeef00" }))).toBe("unknown error 0xdeadbeef");
  });
});
