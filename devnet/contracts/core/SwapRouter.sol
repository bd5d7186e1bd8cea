// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {RouteCall, Leg} from "./RouteCall.sol";
import {WETH9} from "./WETH9.sol";

/// @notice The service's swap router: any token for any token through the aggregator, with a 0.1% fee
/// taken from the output. `tokenOut` may be NATIVE (0xEeee…) for ETH, paid by unwrapping WETH.
contract SwapRouter is Ownable {
    using SafeERC20 for IERC20;

    address public constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    uint16 public constant feeBps = 10;

    struct SwapRequest {
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        uint256 minAmountOut;
        address recipient;
        address aggregator;
        bytes route;
    }

    WETH9 public immutable weth;
    address public aggregator;
    bool public paused;

    event Swapped(
        address indexed sender,
        address indexed recipient,
        address indexed tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 amountOut,
        uint256 fee
    );
    event AggregatorChanged(address aggregator);
    event Paused(bool paused);

    constructor(address aggregator_, WETH9 weth_, address owner_) Ownable(owner_) {
        aggregator = aggregator_;
        weth = weth_;
    }

    receive() external payable {}

    function setAggregator(address aggregator_) external onlyOwner {
        aggregator = aggregator_;
        emit AggregatorChanged(aggregator_);
    }

    function setPaused(bool paused_) external onlyOwner {
        paused = paused_;
        emit Paused(paused_);
    }

    function sweep(address token, address to, uint256 amount) external onlyOwner {
        IERC20(token).safeTransfer(to, amount);
    }

    function swap(SwapRequest calldata req) external returns (uint256 amountOut) {
        require(!paused, "SWAP_PAUSED");
        require(req.aggregator == aggregator, "SWAP_CONTRACTS_CHANGED");
        require(req.tokenIn != NATIVE, "NATIVE_ETH_IN");
        bool native = req.tokenOut == NATIVE;
        address received = native ? address(weth) : req.tokenOut;
        IERC20(req.tokenIn).safeTransferFrom(msg.sender, address(this), req.amountIn);
        uint256 gross = RouteCall.run(aggregator, Leg(req.tokenIn, received, req.amountIn, req.route));
        uint256 fee = gross * feeBps / 10_000;
        amountOut = gross - fee;
        require(amountOut >= req.minAmountOut, "MIN_OUT");
        // The fee stays in the router; the owner sweeps it.
        if (native) {
            weth.withdraw(amountOut);
            (bool ok,) = req.recipient.call{value: amountOut}("");
            require(ok, "ETH_SEND_FAILED");
        } else {
            IERC20(received).safeTransfer(req.recipient, amountOut);
        }
        emit Swapped(msg.sender, req.recipient, req.tokenIn, req.tokenOut, req.amountIn, amountOut, fee);
    }
}
