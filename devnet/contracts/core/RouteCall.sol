// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @notice One aggregator leg: `data` is calldata for the aggregator, which pulls `amountIn` of `tokenIn`
/// from this contract and pays `tokenOut` back to it.
struct Leg {
    address tokenIn;
    address tokenOut;
    uint256 amountIn;
    bytes data;
}

/// @notice Runs aggregator legs with an exact, temporary approval, and measures what came back.
library RouteCall {
    using SafeERC20 for IERC20;

    function run(address aggregator, Leg memory leg) internal returns (uint256 amountOut) {
        if (leg.tokenIn == leg.tokenOut) return leg.amountIn;
        uint256 before = IERC20(leg.tokenOut).balanceOf(address(this));
        IERC20(leg.tokenIn).forceApprove(aggregator, leg.amountIn);
        (bool ok, bytes memory ret) = aggregator.call(leg.data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        IERC20(leg.tokenIn).forceApprove(aggregator, 0);
        amountOut = IERC20(leg.tokenOut).balanceOf(address(this)) - before;
    }
}
