// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {SmartAccount} from "./SmartAccount.sol";

/// @notice Makes SmartAccounts at CREATE2 addresses known beforehand (owner, salt).
contract SmartAccountFactory {
    address public immutable entryPoint;

    event SmartAccountCreated(address indexed account, address indexed owner, uint256 salt);

    constructor(address entryPoint_) {
        entryPoint = entryPoint_;
    }

    function createAccount(address owner, uint256 salt) external returns (address account) {
        account = getAddress(owner, salt);
        if (account.code.length > 0) return account;
        new SmartAccount{salt: bytes32(salt)}(entryPoint, owner);
        emit SmartAccountCreated(account, owner, salt);
    }

    function getAddress(address owner, uint256 salt) public view returns (address) {
        bytes32 code = keccak256(abi.encodePacked(type(SmartAccount).creationCode, abi.encode(entryPoint, owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), code)))));
    }
}
