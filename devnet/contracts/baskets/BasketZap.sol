// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {RouteCall, Leg} from "../core/RouteCall.sol";
import {BasketLegs} from "./BasketLegs.sol";
import {BasketPool} from "./BasketPool.sol";
import {BasketRegistry} from "./BasketRegistry.sol";

/// @notice Buys and sells baskets with one token: each basket token is traded through the aggregator
/// and the basket is joined or exited in proportion. No service fee. Holds nothing between calls:
/// every leftover goes to the recipient.
contract BasketZap is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    BasketRegistry public immutable registry;
    address public aggregator;

    event ZapBuy(address indexed pool, address indexed sender, address indexed recipient, address tokenIn, uint256 amountIn, uint256 bptOut);
    event ZapSell(address indexed pool, address indexed sender, address indexed recipient, address tokenOut, uint256 bptIn, uint256 amountOut);
    event AggregatorChanged(address aggregator);

    constructor(BasketRegistry registry_, address aggregator_, address admin_) Ownable(admin_) {
        registry = registry_;
        aggregator = aggregator_;
    }

    function setAggregator(address aggregator_) external onlyOwner {
        aggregator = aggregator_;
        emit AggregatorChanged(aggregator_);
    }

    /// @notice Pays `amountIn` of `tokenIn` (approved to the zap) for basket tokens sent to `recipient`.
    /// `legs[i]` buys the pool's i-th token with tokenIn.
    function buy(
        address pool,
        address tokenIn,
        uint256 amountIn,
        Leg[] calldata legs,
        uint256 minBptOut,
        address recipient,
        uint256 deadline
    ) external nonReentrant returns (uint256 bptOut) {
        _checkBasket(pool, deadline);
        require(!registry.isSellOnly(pool), "BASKET_SELL_ONLY");
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);

        address[] memory tokens = BasketPool(pool).getTokens();
        (uint256[] memory received, uint256 spent) = BasketLegs.runBuyLegs(aggregator, tokens, tokenIn, amountIn, legs);
        for (uint256 i = 0; i < tokens.length; i++) IERC20(tokens[i]).forceApprove(pool, received[i]);
        uint256[] memory amountsIn;
        (bptOut, amountsIn) = BasketPool(pool).join(received, 0, recipient);
        require(bptOut >= minBptOut, "MIN_OUT");

        // What the proportional join did not take goes back to the recipient.
        for (uint256 i = 0; i < tokens.length; i++) {
            IERC20(tokens[i]).forceApprove(pool, 0);
            uint256 dust = received[i] - amountsIn[i];
            if (dust > 0) IERC20(tokens[i]).safeTransfer(recipient, dust);
        }
        if (amountIn > spent) IERC20(tokenIn).safeTransfer(recipient, amountIn - spent);
        emit ZapBuy(pool, msg.sender, recipient, tokenIn, amountIn, bptOut);
    }

    /// @notice Sells `bptIn` basket tokens (approved to the zap) for `tokenOut` paid to `recipient`.
    /// `legs[i]` sells at most the pool's i-th token exited; what a leg leaves is paid in kind.
    function sell(
        address pool,
        uint256 bptIn,
        address tokenOut,
        Leg[] calldata legs,
        uint256 minOut,
        address recipient,
        uint256 deadline
    ) external nonReentrant returns (uint256 amountOut) {
        _checkBasket(pool, deadline);
        require(bptIn > 0, "NOTHING_TO_SELL");
        IERC20(pool).safeTransferFrom(msg.sender, address(this), bptIn);

        address[] memory tokens = BasketPool(pool).getTokens();
        require(legs.length == tokens.length, "BAD_LEG");
        uint256[] memory exited = BasketPool(pool).exit(bptIn, new uint256[](tokens.length), address(this));
        for (uint256 i = 0; i < legs.length; i++) {
            require(legs[i].tokenIn == tokens[i] && legs[i].tokenOut == tokenOut, "BAD_LEG");
            require(legs[i].amountIn <= exited[i], "BAD_LEG");
            amountOut += RouteCall.run(aggregator, legs[i]);
        }
        require(amountOut >= minOut, "MIN_OUT");
        IERC20(tokenOut).safeTransfer(recipient, amountOut);
        for (uint256 i = 0; i < tokens.length; i++) {
            uint256 dust = exited[i] - legs[i].amountIn;
            if (dust > 0) IERC20(tokens[i]).safeTransfer(recipient, dust);
        }
        emit ZapSell(pool, msg.sender, recipient, tokenOut, bptIn, amountOut);
    }

    function _checkBasket(address pool, uint256 deadline) private view {
        require(block.timestamp <= deadline, "EXPIRED");
        require(registry.isRegistered(pool), "UNKNOWN_BASKET");
        require(!BasketPool(pool).paused(), "BASKET_PAUSED");
    }
}
