// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {AgentAccount, Limits} from "./AgentAccount.sol";
import {LadderStrategy} from "./LadderStrategy.sol";

/// @notice Creates agent accounts, one per owner. `enabled` is the feature switch: while off, no account
/// can be created and no account's LADDER call runs (owners can still withdraw).
contract AgentAccountFactory is Ownable {
    LadderStrategy public immutable ladderStrategy;
    bool public enabled;
    mapping(address => address) public accountOf;
    address[] private _accounts;

    event AccountCreated(address indexed account, address indexed owner, address indexed agent);
    event EnabledSet(bool enabled);

    constructor(LadderStrategy ladderStrategy_, address owner_) Ownable(owner_) {
        ladderStrategy = ladderStrategy_;
    }

    function setEnabled(bool enabled_) external onlyOwner {
        enabled = enabled_;
        emit EnabledSet(enabled_);
    }

    /// @notice Creates the caller's account, traded by `agent` within `limits`.
    function create(address agent, Limits calldata limits) external returns (address account) {
        require(enabled, "ACCOUNTS_DISABLED");
        require(agent != address(0), "BAD_AGENT");
        require(accountOf[msg.sender] == address(0), "ACCOUNT_EXISTS");
        account = address(new AgentAccount(msg.sender, agent, limits, ladderStrategy));
        accountOf[msg.sender] = account;
        _accounts.push(account);
        emit AccountCreated(account, msg.sender, agent);
    }

    function accounts() external view returns (address[] memory) {
        return _accounts;
    }
}
