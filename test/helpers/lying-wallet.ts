// A contract wallet whose ERC-1271 lies, for the payment tests: isValidSignature answers the magic value for any
// hash and any signature while `lying` is set (its deployer may unset it). Compiled here with solc-js
// (offline), deployed by the test: it is no part of the devnet.
import { createRequire } from "node:module";
import { getAddress, type Abi, type Address, type Hex, type LocalAccount, type PublicClient } from "viem";
import { walletAt } from "./wallets.js";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

contract LyingWallet {
    address public immutable deployer;
    bool public lying = true;

    constructor() {
        deployer = msg.sender;
    }

    function setLying(bool value) external {
        require(msg.sender == deployer, "NOT_DEPLOYER");
        lying = value;
    }

    function isValidSignature(bytes32, bytes calldata) external view returns (bytes4) {
        return lying ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
`;

export const lyingWalletAbi = [
  { type: "function", name: "setLying", stateMutability: "nonpayable", inputs: [{ name: "value", type: "bool" }], outputs: [] },
  { type: "function", name: "lying", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "bool" }] },
] as const;

function compile(): { abi: Abi; bytecode: Hex } {
  const solc = createRequire(import.meta.url)("solc");
  const input = {
    language: "Solidity",
    sources: { "LyingWallet.sol": { content: SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join("\n"));
  const c = output.contracts["LyingWallet.sol"].LyingWallet;
  return { abi: c.abi as Abi, bytecode: `0x${c.evm.bytecode.object}` as Hex };
}

/** Deploys a LyingWallet from `deployer`; answers its address. */
export async function deployLyingWallet(rpcUrl: string, chain: PublicClient, deployer: LocalAccount): Promise<Address> {
  const hash = await walletAt(rpcUrl, deployer).deployContract({ ...compile() } as never);
  const receipt = await chain.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("the lying wallet's deployment failed");
  return getAddress(receipt.contractAddress);
}
