// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {MarketRegistry} from "./MarketRegistry.sol";
import {Pool} from "./Pool.sol";

/// @notice The devnet's stand-in for the external swap aggregator: an executor that routes any token
/// to any token over the USDG pools (token -> USDG -> token). A route is calldata for `swap`.
contract DevAggregator {
    using SafeERC20 for IERC20;

    MarketRegistry public immutable markets;
    address public immutable usdg;

    event Routed(address indexed sender, address indexed recipient, address tokenIn, address tokenOut, uint256 amountIn, uint256 amountOut);

    constructor(MarketRegistry markets_) {
        markets = markets_;
        usdg = markets_.usdg();
    }

    /// @notice Pulls `amountIn` of `tokenIn` from the caller and pays at least `minOut` of `tokenOut` to `recipient`.
    function swap(address tokenIn, address tokenOut, uint256 amountIn, uint256 minOut, address recipient)
        external
        returns (uint256 amountOut)
    {
        require(tokenIn != tokenOut, "SAME_TOKEN");
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);
        uint256 usdgAmount = amountIn;
        if (tokenIn != usdg) usdgAmount = _sell(tokenIn, amountIn, tokenOut == usdg ? recipient : address(this));
        amountOut = usdgAmount;
        if (tokenOut != usdg) amountOut = _buy(tokenOut, usdgAmount, recipient);
        require(amountOut >= minOut, "AGGREGATOR_SLIPPAGE");
        emit Routed(msg.sender, recipient, tokenIn, tokenOut, amountIn, amountOut);
    }

    /// @notice What `swap` would pay now.
    function quote(address tokenIn, address tokenOut, uint256 amountIn) external view returns (uint256 amountOut) {
        amountOut = amountIn;
        if (tokenIn != usdg) amountOut = Pool(_pool(tokenIn)).quote(tokenIn, amountOut);
        if (tokenOut != usdg) amountOut = Pool(_pool(tokenOut)).quote(usdg, amountOut);
    }

    function _sell(address token, uint256 amount, address to) private returns (uint256) {
        Pool pool = Pool(_pool(token));
        IERC20(token).forceApprove(address(pool), amount);
        return pool.swap(token, amount, 0, to);
    }

    function _buy(address token, uint256 usdgAmount, address to) private returns (uint256) {
        Pool pool = Pool(_pool(token));
        IERC20(usdg).forceApprove(address(pool), usdgAmount);
        return pool.swap(usdg, usdgAmount, 0, to);
    }

    function _pool(address token) private view returns (address pool) {
        pool = markets.poolOf(token);
        require(pool != address(0), "NO_MARKET");
    }
}
