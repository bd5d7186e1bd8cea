// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {RouteCall, Leg} from "../core/RouteCall.sol";

/// @notice The buy side shared by the zap and the maker: one aggregator leg per basket token, in the
/// pool's token order, each paid with `tokenIn` (a leg whose tokenIn == tokenOut passes a basket token
/// paid directly).
library BasketLegs {
    /// @return received what each leg brought in, per basket token.
    /// @return spent the sum of the legs' inputs, at most `amountIn`.
    function runBuyLegs(address aggregator, address[] memory tokens, address tokenIn, uint256 amountIn, Leg[] calldata legs)
        internal
        returns (uint256[] memory received, uint256 spent)
    {
        require(legs.length == tokens.length, "BAD_LEG");
        received = new uint256[](tokens.length);
        for (uint256 i = 0; i < legs.length; i++) {
            require(legs[i].tokenIn == tokenIn && legs[i].tokenOut == tokens[i], "BAD_LEG");
            spent += legs[i].amountIn;
        }
        require(spent <= amountIn, "BAD_LEG");
        for (uint256 i = 0; i < legs.length; i++) received[i] = RouteCall.run(aggregator, legs[i]);
    }
}
