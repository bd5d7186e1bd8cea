// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";

/// @notice Life of a queued request (deposit or redemption).
enum RequestState {
    None,
    Pending,
    Settled,
    Refunded,
    Cancelled
}

/// @notice A queue of USDG deposit requests that the keeper settles into shares: the merged vault's
/// own queue and the up vault's deposit queue. The payer owns the request (cancels it, gets refunds);
/// the receiver gets the shares.
abstract contract DepositBook {
    using SafeERC20 for IERC20;
    using EnumerableSet for EnumerableSet.UintSet;

    struct DepositRequest {
        address owner;
        address receiver;
        uint256 assets;
        uint256 minShares;
        RequestState state;
    }

    IERC20 private immutable _depositAsset;
    /// @notice USDG waiting in pending requests (counts towards the deposit cap).
    uint256 public queuedAssets;
    uint256 public lastDepositId;
    mapping(uint256 => DepositRequest) public deposits;
    EnumerableSet.UintSet private _pendingDeposits;

    event DepositRequested(uint256 indexed id, address indexed owner, address indexed receiver, uint256 assets, uint256 minShares);
    event DepositSettled(uint256 indexed id, address indexed receiver, uint256 assets, uint256 shares);
    event DepositRefunded(uint256 indexed id, address indexed owner, uint256 assets);
    event DepositCancelled(uint256 indexed id, address indexed owner, uint256 assets);

    constructor(IERC20 asset_) {
        _depositAsset = asset_;
    }

    /// @dev Reverts with the reason the vault refuses `assets` now (status, caps, minimum).
    function _checkDeposit(uint256 assets) internal view virtual;

    /// @dev Shares `assets` would mint now.
    function _previewShares(uint256 assets) internal view virtual returns (uint256);

    /// @dev Turns `assets` held by this contract into shares for `receiver`.
    function _acceptDeposit(uint256 assets, address receiver) internal virtual returns (uint256 shares);

    function _pendingDepositIds() internal view returns (uint256[] memory) {
        return _pendingDeposits.values();
    }

    function _requestDeposit(uint256 assets, address receiver, uint256 minShares) internal returns (uint256 id) {
        require(receiver != address(0), "ZERO_RECEIVER");
        _checkDeposit(assets);
        _depositAsset.safeTransferFrom(msg.sender, address(this), assets);
        id = ++lastDepositId;
        deposits[id] = DepositRequest(msg.sender, receiver, assets, minShares, RequestState.Pending);
        queuedAssets += assets;
        _pendingDeposits.add(id);
        emit DepositRequested(id, msg.sender, receiver, assets, minShares);
    }

    function _cancelDeposit(uint256 id) internal {
        DepositRequest storage r = deposits[id];
        require(r.state == RequestState.Pending, "NOT_PENDING");
        require(r.owner == msg.sender, "NOT_OWNER");
        _close(id, r, RequestState.Cancelled);
        _depositAsset.safeTransfer(r.owner, r.assets);
        emit DepositCancelled(id, r.owner, r.assets);
    }

    /// @dev Settles each pending id; ids settled or cancelled meanwhile are skipped, so one stale id
    /// cannot block a keeper batch. A request whose shares fall under its minimum is refunded.
    function _settleDeposits(uint256[] calldata ids) internal {
        for (uint256 i = 0; i < ids.length; i++) {
            uint256 id = ids[i];
            DepositRequest storage r = deposits[id];
            if (r.state != RequestState.Pending) continue;
            uint256 shares = _previewShares(r.assets);
            if (shares == 0 || shares < r.minShares) {
                _close(id, r, RequestState.Refunded);
                _depositAsset.safeTransfer(r.owner, r.assets);
                emit DepositRefunded(id, r.owner, r.assets);
            } else {
                _close(id, r, RequestState.Settled);
                shares = _acceptDeposit(r.assets, r.receiver);
                emit DepositSettled(id, r.receiver, r.assets, shares);
            }
        }
    }

    function _close(uint256 id, DepositRequest storage r, RequestState state) private {
        r.state = state;
        queuedAssets -= r.assets;
        _pendingDeposits.remove(id);
    }
}
