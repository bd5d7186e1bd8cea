// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {PairVault} from "./PairVault.sol";
import {RequestState} from "./DepositBook.sol";

/// @notice A queue of share redemptions the keeper settles into USDG: the merged vault's redeem queue
/// and the up vault's withdrawal queue. The queue holds the shares meanwhile; the requester owns the
/// request (cancels it, gets shares back) and the receiver gets the USDG. The keeper is the vault's.
abstract contract RedeemBook is ReentrancyGuard {
    using SafeERC20 for IERC20;
    using EnumerableSet for EnumerableSet.UintSet;

    struct RedeemRequest {
        address owner;
        address receiver;
        uint256 shares;
        uint256 minAssetsOut;
        RequestState state;
    }

    PairVault public immutable vault;
    uint256 public lastRequestId;
    mapping(uint256 => RedeemRequest) public requests;
    EnumerableSet.UintSet private _pending;

    event RedeemRequested(uint256 indexed id, address indexed owner, address indexed receiver, uint256 shares, uint256 minAssetsOut);
    event RedeemCompleted(uint256 indexed id, address indexed receiver, uint256 shares, uint256 assets);
    event RedeemCancelled(uint256 indexed id, address indexed owner, uint256 shares);

    constructor(PairVault vault_) {
        vault = vault_;
    }

    /// @notice The request's owner takes the queued shares back.
    function cancel(uint256 id) external nonReentrant {
        RedeemRequest storage r = requests[id];
        require(r.state == RequestState.Pending, "NOT_PENDING");
        require(r.owner == msg.sender, "NOT_OWNER");
        _close(id, r, RequestState.Cancelled);
    }

    /// @notice Keeper: redeems each pending request to USDG for its receiver. A request the vault would
    /// now pay less than its minimum for is cancelled (shares back to the owner). Stale ids are skipped.
    function settle(uint256[] calldata ids) external nonReentrant {
        require(msg.sender == vault.keeper(), "NOT_KEEPER");
        for (uint256 i = 0; i < ids.length; i++) {
            uint256 id = ids[i];
            RedeemRequest storage r = requests[id];
            if (r.state != RequestState.Pending) continue;
            if (vault.previewRedeem(r.shares) < r.minAssetsOut) {
                _close(id, r, RequestState.Refunded);
            } else {
                r.state = RequestState.Settled;
                _pending.remove(id);
                uint256 assets = vault.redeemForQueue(r.shares, r.owner, r.receiver, r.minAssetsOut);
                emit RedeemCompleted(id, r.receiver, r.shares, assets);
            }
        }
    }

    /// @notice Keeper view: ids of the pending requests.
    function pendingIds() external view returns (uint256[] memory) {
        return _pending.values();
    }

    function _request(uint256 shares, address receiver, uint256 minAssetsOut) internal returns (uint256 id) {
        require(shares > 0, "ZERO_SHARES");
        require(receiver != address(0), "ZERO_RECEIVER");
        IERC20(address(vault)).safeTransferFrom(msg.sender, address(this), shares);
        id = ++lastRequestId;
        requests[id] = RedeemRequest(msg.sender, receiver, shares, minAssetsOut, RequestState.Pending);
        _pending.add(id);
        emit RedeemRequested(id, msg.sender, receiver, shares, minAssetsOut);
    }

    /// @dev Ends a request without redeeming: the shares go back to its owner.
    function _close(uint256 id, RedeemRequest storage r, RequestState state) private {
        r.state = state;
        _pending.remove(id);
        IERC20(address(vault)).safeTransfer(r.owner, r.shares);
        emit RedeemCancelled(id, r.owner, r.shares);
    }
}
