// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {MarketRegistry} from "../core/MarketRegistry.sol";
import {PairVault} from "./PairVault.sol";

interface IQueuedAssets {
    function queuedAssets() external view returns (uint256);
}

/// @notice Up vault: deposits only through its UpDepositQueue, withdrawals through its
/// UpWithdrawalQueue, or in kind by the emergency exit (for any position, also those under the
/// queue's minimum).
contract UpVault is PairVault {
    using SafeERC20 for IERC20;

    /// @notice The receiver sits inside the struct on purpose (wallet policies cannot slice it).
    struct EmergencyExit {
        uint256 shares;
        address receiver;
        uint256 minTokenOut;
        uint256 minUsdgOut;
    }

    address public depositQueue;
    address public withdrawalQueue;

    event QueuesChanged(address depositQueue, address withdrawalQueue);

    constructor(
        string memory name_,
        string memory symbol_,
        MarketRegistry markets_,
        address token_,
        address keeper_,
        address owner_
    ) PairVault(name_, symbol_, markets_, token_, address(0), keeper_, owner_) {}

    function setQueues(address depositQueue_, address withdrawalQueue_) external onlyOwner {
        depositQueue = depositQueue_;
        withdrawalQueue = withdrawalQueue_;
        emit QueuesChanged(depositQueue_, withdrawalQueue_);
    }

    /// @notice Reverts with DEPOSITS_CLOSED, DEPOSITS_PAUSED, VAULT_FULL, DEPOSIT_TOO_SMALL or CAPACITY
    /// when a deposit of `assets` USDG would be refused now (the deposit queue's pending USDG counts).
    function checkDeposit(uint256 assets) public view {
        uint256 queued = depositQueue == address(0) ? 0 : IQueuedAssets(depositQueue).queuedAssets();
        _checkLimits(assets, totalAssets() + queued);
    }

    /// @notice The deposit queue: pulls `assets` USDG from it and mints shares for `receiver`.
    function depositFromQueue(uint256 assets, address receiver) external nonReentrant returns (uint256 shares) {
        require(msg.sender == depositQueue && msg.sender != address(0), "NOT_QUEUE");
        usdg.safeTransferFrom(msg.sender, address(this), assets);
        shares = _mintForDeposit(assets, receiver);
    }

    /// @notice Burns the caller's `exit.shares` and pays `exit.receiver` their token and USDG parts.
    function redeemEmergencyInKind(EmergencyExit calldata exit)
        external
        nonReentrant
        returns (uint256 tokenOut, uint256 usdgOut)
    {
        return _redeemInKind(exit.shares, exit.receiver, exit.minTokenOut, exit.minUsdgOut);
    }

    function _exitQueue() internal view override returns (address) {
        return withdrawalQueue;
    }
}
