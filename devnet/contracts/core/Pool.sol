// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {PriceMath} from "./PriceMath.sol";

/// @notice A USDG-quoted constant-product market for one token. Its Swap events give prices and candles.
/// token0/token1 are the two tokens sorted by address, as on a real DEX; `quoteIs0` says where USDG is.
contract Pool {
    using SafeERC20 for IERC20;

    address public immutable token;
    address public immutable usdg;
    address public immutable token0;
    address public immutable token1;
    uint8 public immutable tokenDecimals;
    /// @notice LP fee kept by the pool, in basis points.
    uint16 public constant feeBps = 30;

    uint256 public reserveToken;
    uint256 public reserveUsdg;

    event Swap(
        address indexed sender,
        address indexed recipient,
        address indexed tokenIn,
        uint256 amountIn,
        uint256 amountOut,
        uint256 reserveToken,
        uint256 reserveUsdg
    );
    event LiquidityAdded(address indexed provider, uint256 tokenAmount, uint256 usdgAmount, uint256 reserveToken, uint256 reserveUsdg);

    constructor(address token_, address usdg_) {
        token = token_;
        usdg = usdg_;
        (token0, token1) = token_ < usdg_ ? (token_, usdg_) : (usdg_, token_);
        tokenDecimals = IERC20Metadata(token_).decimals();
    }

    function quoteIs0() external view returns (bool) {
        return token0 == usdg;
    }

    /// @notice USDG per whole token, 18-decimal fixed point.
    function priceX18() public view returns (uint256) {
        return PriceMath.spot(reserveToken, tokenDecimals, reserveUsdg);
    }

    function getReserves() external view returns (uint256, uint256) {
        return (reserveToken, reserveUsdg);
    }

    /// @notice Output of selling `amountIn` of `tokenIn` (the token or USDG) now.
    function quote(address tokenIn, uint256 amountIn) public view returns (uint256) {
        (uint256 rIn, uint256 rOut) = tokenIn == token ? (reserveToken, reserveUsdg) : (reserveUsdg, reserveToken);
        require(tokenIn == token || tokenIn == usdg, "BAD_TOKEN");
        uint256 inAfterFee = amountIn * (10_000 - feeBps);
        return inAfterFee * rOut / (rIn * 10_000 + inAfterFee);
    }

    /// @notice Anyone may add liquidity; it is not withdrawable (devnet markets are permanent).
    function addLiquidity(uint256 tokenAmount, uint256 usdgAmount) external {
        IERC20(token).safeTransferFrom(msg.sender, address(this), tokenAmount);
        IERC20(usdg).safeTransferFrom(msg.sender, address(this), usdgAmount);
        reserveToken += tokenAmount;
        reserveUsdg += usdgAmount;
        emit LiquidityAdded(msg.sender, tokenAmount, usdgAmount, reserveToken, reserveUsdg);
    }

    /// @notice Sells `amountIn` of `tokenIn`, pulled from the caller, and pays `recipient`.
    function swap(address tokenIn, uint256 amountIn, uint256 minOut, address recipient) external returns (uint256 amountOut) {
        require(amountIn > 0, "ZERO_IN");
        amountOut = quote(tokenIn, amountIn);
        require(amountOut >= minOut, "SLIPPAGE");
        require(amountOut > 0, "ZERO_OUT");
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);
        if (tokenIn == token) {
            reserveToken += amountIn;
            reserveUsdg -= amountOut;
            IERC20(usdg).safeTransfer(recipient, amountOut);
        } else {
            reserveUsdg += amountIn;
            reserveToken -= amountOut;
            IERC20(token).safeTransfer(recipient, amountOut);
        }
        emit Swap(msg.sender, recipient, tokenIn, amountIn, amountOut, reserveToken, reserveUsdg);
    }
}
