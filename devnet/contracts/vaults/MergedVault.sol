// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {MarketRegistry} from "../core/MarketRegistry.sol";
import {RouteCall, Leg} from "../core/RouteCall.sol";
import {PairVault} from "./PairVault.sol";
import {DepositBook} from "./DepositBook.sol";

/// @notice Merged vault: USDG deposits queue in the vault and the keeper settles them into shares;
/// withdrawals pay USDG (token part sold through the aggregator), in kind, or through the redeem queue.
contract MergedVault is PairVault, DepositBook {
    using SafeERC20 for IERC20;

    /// @notice Optional queue for USDG withdrawals settled by the keeper (zero if the vault has none).
    address public redeemQueue;

    event RedeemQueueChanged(address redeemQueue);

    constructor(
        string memory name_,
        string memory symbol_,
        MarketRegistry markets_,
        address token_,
        address aggregator_,
        address keeper_,
        address owner_
    ) PairVault(name_, symbol_, markets_, token_, aggregator_, keeper_, owner_) DepositBook(IERC20(markets_.usdg())) {}

    function setRedeemQueue(address queue) external onlyOwner {
        redeemQueue = queue;
        emit RedeemQueueChanged(queue);
    }

    // ---- deposits ----

    /// @notice Reverts with DEPOSITS_CLOSED, DEPOSITS_PAUSED, VAULT_FULL, DEPOSIT_TOO_SMALL or CAPACITY
    /// when a deposit of `assets` USDG would be refused now.
    function checkDeposit(uint256 assets) public view {
        _checkLimits(assets, totalAssets() + queuedAssets);
    }

    /// @notice Pulls `assets` USDG into a request; the keeper mints shares for `receiver` at the next
    /// settlement, or refunds the caller if they would be fewer than `minShares`.
    function requestDeposit(uint256 assets, address receiver, uint256 minShares) external nonReentrant returns (uint256 id) {
        return _requestDeposit(assets, receiver, minShares);
    }

    /// @notice The request's owner takes a pending deposit back.
    function cancelDeposit(uint256 id) external nonReentrant {
        _cancelDeposit(id);
    }

    function settleDeposits(uint256[] calldata ids) external onlyKeeper nonReentrant {
        _settleDeposits(ids);
    }

    /// @notice Keeper view: ids of the pending deposit requests.
    function pendingDepositIds() external view returns (uint256[] memory) {
        return _pendingDepositIds();
    }

    // ---- withdrawals ----

    /// @notice Burns the caller's `shares`; sells their token part through the aggregator with `route`
    /// (calldata for the aggregator's swap, recipient this vault) and pays `receiver` in USDG. Any token
    /// the route leaves unsold (a route sized a little under the part) is paid in kind.
    function redeem(uint256 shares, address receiver, uint256 minUsdgOut, bytes calldata route)
        external
        nonReentrant
        returns (uint256 usdgOut)
    {
        require(receiver != address(0), "ZERO_RECEIVER");
        (uint256 tokenPart, uint256 usdgPart) = _takeShares(msg.sender, shares);
        usdgOut = usdgPart;
        uint256 tokenLeft;
        if (tokenPart > 0) {
            uint256 tokenBefore = token.balanceOf(address(this));
            usdgOut += RouteCall.run(aggregator, Leg(address(token), address(usdg), tokenPart, route));
            // The exact approval means the route spent at most `tokenPart`.
            tokenLeft = tokenPart - (tokenBefore - token.balanceOf(address(this)));
        }
        require(usdgOut >= minUsdgOut, "MIN_OUT");
        usdg.safeTransfer(receiver, usdgOut);
        if (tokenLeft > 0) token.safeTransfer(receiver, tokenLeft);
        emit Redeemed(msg.sender, receiver, shares, usdgOut, tokenLeft);
    }

    /// @notice Burns the caller's `shares` and pays `receiver` their token and USDG parts.
    function redeemInKind(uint256 shares, address receiver, uint256 minTokenOut, uint256 minUsdgOut)
        external
        nonReentrant
        returns (uint256 tokenOut, uint256 usdgOut)
    {
        return _redeemInKind(shares, receiver, minTokenOut, minUsdgOut);
    }

    // ---- hooks ----

    function _exitQueue() internal view override returns (address) {
        return redeemQueue;
    }

    function _checkDeposit(uint256 assets) internal view override {
        checkDeposit(assets);
    }

    function _previewShares(uint256 assets) internal view override returns (uint256) {
        return convertToShares(assets);
    }

    function _acceptDeposit(uint256 assets, address receiver) internal override returns (uint256) {
        return _mintForDeposit(assets, receiver);
    }
}
