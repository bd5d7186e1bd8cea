// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {RouteCall, Leg} from "../core/RouteCall.sol";

/// @notice USDG in and out of stock-token vaults: swaps through the aggregator and deposits or
/// redeems in kind. Holds nothing between calls; what a route leaves unspent goes back.
contract StockVaultRouter is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice The receiver sits inside the struct on purpose (wallet policies cannot slice it).
    struct DepositEntry {
        address vault;
        uint256 usdgIn;
        uint256 minShares;
        address receiver;
        address aggregator;
        bytes swapData;
    }

    IERC20 public immutable usdg;
    address public aggregator;

    event RouterDeposit(address indexed vault, address indexed sender, address indexed receiver, uint256 usdgIn, uint256 shares);
    event RouterWithdraw(address indexed vault, address indexed sender, address indexed receiver, uint256 shares, uint256 usdgOut, uint256 tokenOut);
    event AggregatorChanged(address aggregator);

    constructor(IERC20 usdg_, address aggregator_, address owner_) Ownable(owner_) {
        usdg = usdg_;
        aggregator = aggregator_;
    }

    function setAggregator(address aggregator_) external onlyOwner {
        aggregator = aggregator_;
        emit AggregatorChanged(aggregator_);
    }

    /// @notice Pulls `entry.usdgIn` USDG, swaps it to the vault's stock token with `entry.swapData`
    /// (calldata for the aggregator, recipient this router) and deposits for `entry.receiver`.
    /// USDG the route leaves unspent is refunded to the caller.
    function deposit(DepositEntry calldata entry) external nonReentrant returns (uint256 shares) {
        require(entry.aggregator == aggregator, "SWAP_CONTRACTS_CHANGED");
        require(entry.receiver != address(0), "ZERO_RECEIVER");
        IERC4626 vault = IERC4626(entry.vault);
        IERC20 stock = IERC20(vault.asset());
        uint256 usdgBefore = usdg.balanceOf(address(this));
        usdg.safeTransferFrom(msg.sender, address(this), entry.usdgIn);
        uint256 stockIn = RouteCall.run(aggregator, Leg(address(usdg), address(stock), entry.usdgIn, entry.swapData));
        uint256 usdgLeft = usdg.balanceOf(address(this)) - usdgBefore;
        stock.forceApprove(address(vault), stockIn);
        shares = vault.deposit(stockIn, entry.receiver);
        require(shares >= entry.minShares, "MIN_SHARES");
        if (usdgLeft > 0) usdg.safeTransfer(msg.sender, usdgLeft);
        emit RouterDeposit(address(vault), msg.sender, entry.receiver, entry.usdgIn - usdgLeft, shares);
    }

    /// @notice Pulls `shares` of `vault` from the caller (approve them first), redeems them in kind,
    /// swaps the stock with `route` (recipient this router) and pays `receiver` in USDG. Stock the
    /// route leaves unsold is paid to `receiver` in kind.
    function withdrawUSDG(
        address vault,
        uint256 shares,
        uint256 minUsdgOut,
        address receiver,
        address aggregator_,
        bytes calldata route
    ) external nonReentrant returns (uint256 usdgOut) {
        require(aggregator_ == aggregator, "SWAP_CONTRACTS_CHANGED");
        require(receiver != address(0), "ZERO_RECEIVER");
        IERC20 stock = IERC20(IERC4626(vault).asset());
        uint256 stockBefore = stock.balanceOf(address(this));
        IERC20(vault).safeTransferFrom(msg.sender, address(this), shares);
        uint256 stockOut = IERC4626(vault).redeem(shares, address(this), address(this));
        usdgOut = RouteCall.run(aggregator, Leg(address(stock), address(usdg), stockOut, route));
        require(usdgOut >= minUsdgOut, "MIN_OUT");
        uint256 stockLeft = stock.balanceOf(address(this)) - stockBefore;
        usdg.safeTransfer(receiver, usdgOut);
        if (stockLeft > 0) stock.safeTransfer(receiver, stockLeft);
        emit RouterWithdraw(vault, msg.sender, receiver, shares, usdgOut, stockLeft);
    }
}
