// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice A minimal ERC-7821 batch executor, the code an EIP-7702 account delegates to: the account sends
/// a transaction to itself with `execute(mode, abi.encode(calls))` and each call runs with the account as
/// msg.sender, all or nothing. Only the batch mode without opData (0x01 00..00) is supported, so only the
/// account itself may call (ERC-7821: with empty opData, msg.sender must be the account).
contract BatchExecutor {
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    bytes32 internal constant BATCH_MODE = bytes32(uint256(1) << 248);

    function execute(bytes32 mode, bytes calldata executionData) external payable {
        require(mode == BATCH_MODE, "UNSUPPORTED_MODE");
        require(msg.sender == address(this), "ONLY_SELF");
        Call[] memory calls = abi.decode(executionData, (Call[]));
        for (uint256 i = 0; i < calls.length; i++) {
            // ERC-7821: a call to address(0) is a call to the account itself.
            address to = calls[i].to == address(0) ? address(this) : calls[i].to;
            (bool ok, bytes memory ret) = to.call{value: calls[i].value}(calls[i].data);
            if (!ok) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
        }
    }

    function supportsExecutionMode(bytes32 mode) external pure returns (bool) {
        return mode == BATCH_MODE;
    }

    receive() external payable {}
}
