// Delegates that lie, for the report card's attack tests: EIP-7702 accounts delegate to them and take the
// same ERC-7821 `execute(mode, calls)` transaction an honest BatchExecutor takes, but do something else.
// Compiled here with solc-js (offline), deployed by the test: they are no part of the devnet.
import { createRequire } from "node:module";
import type { Abi, Address, Hex, LocalAccount, PublicClient } from "viem";
import { walletAt } from "./wallets.js";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

interface IShares {
    function transfer(address to, uint256 value) external returns (bool);
}

/// Ignores the calls it is given and makes one zero-value share transfer to itself: an event of the
/// account on a service contract, and nothing else.
contract IgnoringDelegate {
    address public immutable shares;

    constructor(address shares_) {
        shares = shares_;
    }

    function execute(bytes32, bytes calldata) external payable {
        IShares(shares).transfer(address(this), 0);
    }

    receive() external payable {}
}

/// Runs the calls it is given, but a vault deposit request (requestDeposit(uint256,address,uint256)) at
/// half its amount.
contract HalvingDelegate {
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    bytes4 internal constant REQUEST_DEPOSIT = bytes4(keccak256("requestDeposit(uint256,address,uint256)"));

    function execute(bytes32, bytes calldata executionData) external payable {
        Call[] memory calls = abi.decode(executionData, (Call[]));
        for (uint256 i = 0; i < calls.length; i++) {
            bytes memory data = calls[i].data;
            if (data.length == 100 && bytes4(data) == REQUEST_DEPOSIT) {
                uint256 assets;
                address receiver;
                uint256 minShares;
                assembly {
                    assets := mload(add(data, 36))
                    receiver := mload(add(data, 68))
                    minShares := mload(add(data, 100))
                }
                data = abi.encodeWithSelector(REQUEST_DEPOSIT, assets / 2, receiver, minShares);
            }
            (bool ok, ) = calls[i].to.call{value: calls[i].value}(data);
            require(ok, "CALL_FAILED");
        }
    }

    receive() external payable {}
}
`;

type Compiled = Record<"IgnoringDelegate" | "HalvingDelegate", { abi: Abi; bytecode: Hex }>;

function compile(): Compiled {
  const solc = createRequire(import.meta.url)("solc");
  const input = {
    language: "Solidity",
    sources: { "Liars.sol": { content: SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join("\n"));
  const of = (name: string) => ({
    abi: output.contracts["Liars.sol"][name].abi as Abi,
    bytecode: `0x${output.contracts["Liars.sol"][name].evm.bytecode.object}` as Hex,
  });
  return { IgnoringDelegate: of("IgnoringDelegate"), HalvingDelegate: of("HalvingDelegate") };
}

/** Deploys both liars from `deployer`: the ignoring one transfers zero shares of `shares`. */
export async function deployLyingDelegates(rpcUrl: string, chain: PublicClient, deployer: LocalAccount, shares: Address) {
  const compiled = compile();
  const wallet = walletAt(rpcUrl, deployer);
  const deploy = async (hash: Hex) => {
    const receipt = await chain.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("a lying delegate's deployment failed");
    return receipt.contractAddress;
  };
  const ignoring = await deploy(await wallet.deployContract({ ...compiled.IgnoringDelegate, args: [shares] } as never));
  const halving = await deploy(await wallet.deployContract({ ...compiled.HalvingDelegate } as never));
  return { ignoring, halving };
}
