// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {PackedUserOperation, IAccount} from "./UserOperation.sol";

/// @notice A reference ERC-4337 EntryPoint with v0.7's `handleOps` calldata, user-operation hash, nonces
/// and events, without the gas accounting: no deposits, no paymasters, no initCode (accounts are made by
/// their factory beforehand), and the bundler is not paid. As the canonical one, it validates every
/// operation first, then runs each operation's callData on its account; a failing operation is reported
/// (UserOperationEvent success=false, UserOperationRevertReason) and does not stop the others.
contract EntryPoint {
    mapping(address => mapping(uint192 => uint256)) public nonceSequenceNumber;

    event UserOperationEvent(
        bytes32 indexed userOpHash,
        address indexed sender,
        address indexed paymaster,
        uint256 nonce,
        bool success,
        uint256 actualGasCost,
        uint256 actualGasUsed
    );
    event UserOperationRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason);

    function getNonce(address sender, uint192 key) external view returns (uint256) {
        return (uint256(key) << 64) | nonceSequenceNumber[sender][key];
    }

    function getUserOpHash(PackedUserOperation calldata op) public view returns (bytes32) {
        bytes32 packed = keccak256(
            abi.encode(
                op.sender,
                op.nonce,
                keccak256(op.initCode),
                keccak256(op.callData),
                op.accountGasLimits,
                op.preVerificationGas,
                op.gasFees,
                keccak256(op.paymasterAndData)
            )
        );
        return keccak256(abi.encode(packed, address(this), block.chainid));
    }

    function handleOps(PackedUserOperation[] calldata ops, address payable beneficiary) external {
        beneficiary; // no gas accounting here: the bundler is not paid
        bytes32[] memory hashes = new bytes32[](ops.length);
        for (uint256 i = 0; i < ops.length; i++) {
            PackedUserOperation calldata op = ops[i];
            require(op.initCode.length == 0 && op.paymasterAndData.length == 0, "AA UNSUPPORTED");
            uint192 key = uint192(op.nonce >> 64);
            require(nonceSequenceNumber[op.sender][key]++ == uint64(op.nonce), "AA25 invalid account nonce");
            hashes[i] = getUserOpHash(op);
            require(IAccount(op.sender).validateUserOp(op, hashes[i], 0) == 0, "AA24 signature error");
        }
        for (uint256 i = 0; i < ops.length; i++) {
            (bool ok, bytes memory ret) = ops[i].sender.call(ops[i].callData);
            if (!ok) emit UserOperationRevertReason(hashes[i], ops[i].sender, ops[i].nonce, ret);
            emit UserOperationEvent(hashes[i], ops[i].sender, address(0), ops[i].nonce, ok, 0, 0);
        }
    }
}
