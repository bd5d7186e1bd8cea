// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {PackedUserOperation, IAccount} from "./UserOperation.sol";

/// @notice A minimal ERC-4337 smart account with SimpleAccount's calldata: `execute(target, value, data)`,
/// `executeBatch(Call[])` (v0.8) and `executeBatch(address[], uint256[], bytes[])` (v0.7). The EntryPoint
/// or the owner may call; a user operation is valid when the owner signed its hash (personal_sign). Off chain it
/// signs by ERC-1271: a hash is signed for the account when the owner signed that hash (EIP-712 typed data such
/// as an EIP-3009 payment authorization, which names the account as `from`).
contract SmartAccount is IAccount {
    struct Call {
        address target;
        uint256 value;
        bytes data;
    }

    bytes4 internal constant ERC1271_MAGIC_VALUE = 0x1626ba7e;

    address public immutable entryPoint;
    address public immutable owner;

    constructor(address entryPoint_, address owner_) {
        entryPoint = entryPoint_;
        owner = owner_;
    }

    modifier onlyEntryPointOrOwner() {
        require(msg.sender == entryPoint || msg.sender == owner, "NOT_ALLOWED");
        _;
    }

    function validateUserOp(PackedUserOperation calldata userOp, bytes32 userOpHash, uint256 missingAccountFunds) external returns (uint256) {
        require(msg.sender == entryPoint, "NOT_ENTRYPOINT");
        if (missingAccountFunds > 0) {
            (bool paid, ) = payable(msg.sender).call{value: missingAccountFunds}("");
            paid;
        }
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecover(MessageHashUtils.toEthSignedMessageHash(userOpHash), userOp.signature);
        return err == ECDSA.RecoverError.NoError && signer == owner ? 0 : 1;
    }

    /// @notice ERC-1271. The owner's signature over `hash` itself: a message that does not name the account could
    /// be replayed on another account of the same owner, so what this account signs should (an EIP-3009
    /// authorization names its `from`; a user operation hash names its sender).
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        return err == ECDSA.RecoverError.NoError && signer == owner ? ERC1271_MAGIC_VALUE : bytes4(0xffffffff);
    }

    function execute(address target, uint256 value, bytes calldata data) external onlyEntryPointOrOwner {
        _call(target, value, data);
    }

    function executeBatch(Call[] calldata calls) external onlyEntryPointOrOwner {
        for (uint256 i = 0; i < calls.length; i++) _call(calls[i].target, calls[i].value, calls[i].data);
    }

    function executeBatch(address[] calldata dest, uint256[] calldata value, bytes[] calldata func) external onlyEntryPointOrOwner {
        require(dest.length == func.length && (value.length == 0 || value.length == func.length), "WRONG_ARRAY_LENGTHS");
        for (uint256 i = 0; i < dest.length; i++) _call(dest[i], value.length == 0 ? 0 : value[i], func[i]);
    }

    function _call(address target, uint256 value, bytes memory data) internal {
        (bool ok, bytes memory ret) = target.call{value: value}(data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
    }

    receive() external payable {}
}
