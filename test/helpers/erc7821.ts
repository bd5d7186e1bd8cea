// An ERC-7821 batch as an EIP-7702 account's `execute(mode, executionData)` calldata: batch mode (0x01, no
// opData) over (target, value, data) calls. For the tests and benchmarks that build batches by hand.
import { encodeAbiParameters, encodeFunctionData, pad, type Address, type Hex } from "viem";
import { batchExecutorAbi } from "../../abis/index.js";

export const BATCH_MODE = pad("0x01", { dir: "right", size: 32 });

export const encodeBatchExecute = (calls: readonly { to: Address; value?: bigint; data: Hex }[]): Hex =>
  encodeFunctionData({
    abi: batchExecutorAbi,
    functionName: "execute",
    args: [
      BATCH_MODE,
      encodeAbiParameters(
        [{ type: "tuple[]", components: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }] }],
        [calls.map((c) => [c.to, c.value ?? 0n, c.data] as const)],
      ),
    ],
  });
