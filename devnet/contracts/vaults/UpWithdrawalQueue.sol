// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {PairVault} from "./PairVault.sol";
import {RedeemBook} from "./RedeemBook.sol";

/// @notice An up vault's withdrawal queue. Requests under `minimumShares` are refused; such positions
/// leave through the vault's `redeemEmergencyInKind`.
contract UpWithdrawalQueue is RedeemBook {
    uint256 public minimumShares;

    event MinimumSharesChanged(uint256 minimumShares);

    constructor(PairVault vault_, uint256 minimumShares_) RedeemBook(vault_) {
        minimumShares = minimumShares_;
    }

    function setMinimumShares(uint256 minimumShares_) external {
        require(msg.sender == vault.owner(), "NOT_ADMIN");
        minimumShares = minimumShares_;
        emit MinimumSharesChanged(minimumShares_);
    }

    /// @notice Queues `shares` (pulled from the caller) for redemption to USDG paid to `owner`.
    function requestRedeem(uint256 shares, address owner, uint256 minimumAssetsOut) external nonReentrant returns (uint256 id) {
        require(shares >= minimumShares, "BELOW_QUEUE_MINIMUM");
        return _request(shares, owner, minimumAssetsOut);
    }
}
