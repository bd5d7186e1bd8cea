// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {DepositBook} from "./DepositBook.sol";
import {UpVault} from "./UpVault.sol";

/// @notice An up vault's deposit queue (the only way into the vault): approve USDG to it,
/// `requestDeposit`, and the keeper settles the request into shares. The keeper is the vault's.
contract UpDepositQueue is DepositBook, ReentrancyGuard {
    using SafeERC20 for IERC20;

    UpVault public immutable vault;
    IERC20 public immutable usdg;

    constructor(UpVault vault_) DepositBook(vault_.usdg()) {
        vault = vault_;
        usdg = vault_.usdg();
    }

    /// @notice Pulls `assets` USDG from the caller into a request; shares go to `owner` at settlement.
    /// The caller owns the request: it may cancel it and receives refunds.
    function requestDeposit(uint256 assets, address owner, uint256 minimumSharesOut) external nonReentrant returns (uint256 id) {
        return _requestDeposit(assets, owner, minimumSharesOut);
    }

    function cancel(uint256 id) external nonReentrant {
        _cancelDeposit(id);
    }

    function settle(uint256[] calldata ids) external nonReentrant {
        require(msg.sender == vault.keeper(), "NOT_KEEPER");
        _settleDeposits(ids);
    }

    /// @notice Keeper view: ids of the pending deposit requests.
    function pendingIds() external view returns (uint256[] memory) {
        return _pendingDepositIds();
    }

    function _checkDeposit(uint256 assets) internal view override {
        vault.checkDeposit(assets);
    }

    function _previewShares(uint256 assets) internal view override returns (uint256) {
        return vault.convertToShares(assets);
    }

    function _acceptDeposit(uint256 assets, address receiver) internal override returns (uint256) {
        usdg.forceApprove(address(vault), assets);
        return vault.depositFromQueue(assets, receiver);
    }
}
