// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {PairVault} from "./PairVault.sol";
import {RedeemBook} from "./RedeemBook.sol";

/// @notice A merged vault's withdrawal queue: approve shares to it, `request`, and the keeper pays USDG.
contract RedeemQueue is RedeemBook {
    constructor(PairVault vault_) RedeemBook(vault_) {}

    /// @notice Queues `shares` (pulled from the caller) for redemption to USDG paid to `receiver`.
    function request(uint256 shares, address receiver, uint256 minAssetsOut) external nonReentrant returns (uint256 id) {
        return _request(shares, receiver, minAssetsOut);
    }
}
