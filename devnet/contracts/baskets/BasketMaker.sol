// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Leg} from "../core/RouteCall.sol";
import {BasketLegs} from "./BasketLegs.sol";
import {BasketPool} from "./BasketPool.sol";
import {BasketRegistry} from "./BasketRegistry.sol";

/// @notice Makes a basket in one call: deploys its pool (CREATE2, the service's admin as pool admin),
/// buys each token with one payment through the aggregator, puts everything in as the first deposit and
/// registers the basket, unlisted until the service verifies it. No service fee.
contract BasketMaker is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    struct BasketParams {
        string name;
        string symbol;
        address[] tokens;
        uint256[] normalizedWeights;
        uint256 swapFeePercentage;
        bytes32 salt;
    }

    uint256 public constant MIN_WEIGHT = 1e16;
    uint256 public constant FEE_LOW = 3e15;
    uint256 public constant FEE_HIGH = 1e16;

    BasketRegistry public immutable registry;
    address public immutable usdg;
    address public immutable weth;
    address public aggregator;

    event BasketMade(
        address indexed pool,
        address indexed creator,
        string name,
        string symbol,
        address[] tokens,
        uint256[] normalizedWeights,
        uint256 swapFeePercentage
    );
    event AggregatorChanged(address aggregator);

    constructor(BasketRegistry registry_, address usdg_, address weth_, address aggregator_, address admin_) Ownable(admin_) {
        registry = registry_;
        usdg = usdg_;
        weth = weth_;
        aggregator = aggregator_;
    }

    function setAggregator(address aggregator_) external onlyOwner {
        aggregator = aggregator_;
        emit AggregatorChanged(aggregator_);
    }

    /// @notice Makes the basket and sends its first 100 basket tokens to `recipient`. `amountIn` of `tokenIn`
    /// (approved to the maker) is split over `legs` by the weights, so the first deposit matches them in value.
    function make(
        BasketParams calldata basket,
        address tokenIn,
        uint256 amountIn,
        Leg[] calldata legs,
        uint256 minBptOut,
        address recipient,
        uint256 deadline
    ) external nonReentrant returns (address pool, uint256 bptOut) {
        require(block.timestamp <= deadline, "EXPIRED");
        _validate(basket);
        _checkSplit(basket.normalizedWeights, amountIn, legs);

        pool = _deploy(basket, msg.sender);
        // Announce the basket before its first deposit, so indexers see it before its own events.
        _record(pool, basket);
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);
        bptOut = _firstDeposit(pool, basket.tokens, tokenIn, amountIn, legs, recipient);
        require(bptOut >= minBptOut, "MIN_OUT");
    }

    function _record(address pool, BasketParams calldata basket) private {
        registry.register(pool, msg.sender, false);
        emit BasketMade(pool, msg.sender, basket.name, basket.symbol, basket.tokens, basket.normalizedWeights, basket.swapFeePercentage);
    }

    /// @dev Each leg spends its weight's share of the payment, so the first deposit matches the weights in value.
    function _checkSplit(uint256[] calldata weights, uint256 amountIn, Leg[] calldata legs) private pure {
        for (uint256 i = 0; i < legs.length && i < weights.length; i++) {
            require(_near(legs[i].amountIn, amountIn * weights[i] / 1e18), "BAD_LEG");
        }
    }

    function _deploy(BasketParams calldata basket, address creator) private returns (address) {
        return address(new BasketPool{salt: _salt(basket.salt, creator)}(
            basket.name, basket.symbol, basket.tokens, basket.normalizedWeights, basket.swapFeePercentage, owner()
        ));
    }

    /// @dev Buys every token and joins with all of it; the first join takes everything, so only the
    /// legs' rounding of tokenIn can be left, and it goes to the recipient.
    function _firstDeposit(address pool, address[] calldata tokens, address tokenIn, uint256 amountIn, Leg[] calldata legs, address recipient)
        private
        returns (uint256 bptOut)
    {
        (uint256[] memory received, uint256 spent) = BasketLegs.runBuyLegs(aggregator, tokens, tokenIn, amountIn, legs);
        for (uint256 i = 0; i < tokens.length; i++) IERC20(tokens[i]).forceApprove(pool, received[i]);
        (bptOut,) = BasketPool(pool).join(received, 0, recipient);
        if (amountIn > spent) IERC20(tokenIn).safeTransfer(recipient, amountIn - spent);
    }

    /// @notice The address `make` deploys the basket to when `creator` sends it.
    function predictAddress(BasketParams calldata basket, address creator) external view returns (address) {
        bytes memory initCode = abi.encodePacked(
            type(BasketPool).creationCode,
            abi.encode(basket.name, basket.symbol, basket.tokens, basket.normalizedWeights, basket.swapFeePercentage, owner())
        );
        bytes32 hash = keccak256(abi.encodePacked(bytes1(0xff), address(this), _salt(basket.salt, creator), keccak256(initCode)));
        return address(uint160(uint256(hash)));
    }

    /// @dev The creator is in the salt, so nobody can take another wallet's prepared address.
    function _salt(bytes32 salt, address creator) private pure returns (bytes32) {
        return keccak256(abi.encode(creator, salt));
    }

    function _validate(BasketParams calldata basket) private view {
        uint256 n = basket.tokens.length;
        require(n >= 2 && n <= 8 && basket.normalizedWeights.length == n, "TOKEN_COUNT");
        bool anchored;
        uint256 sum;
        for (uint256 i = 0; i < n; i++) {
            address token = basket.tokens[i];
            require(token != address(0), "BAD_TOKEN");
            if (i > 0) {
                require(token != basket.tokens[i - 1], "DUPLICATE_TOKEN");
                require(token > basket.tokens[i - 1], "UNSORTED_TOKENS");
            }
            if (token == usdg || token == weth) anchored = true;
            require(basket.normalizedWeights[i] >= MIN_WEIGHT, "WEIGHT_TOO_SMALL");
            sum += basket.normalizedWeights[i];
        }
        require(sum == 1e18, "WEIGHTS_SUM");
        require(basket.swapFeePercentage == FEE_LOW || basket.swapFeePercentage == FEE_HIGH, "MAKE_FEE");
        require(anchored, "NO_ANCHOR");

        uint256 nameLength = bytes(basket.name).length;
        require(nameLength >= 1 && nameLength <= 64, "BAD_NAME");
        bytes memory symbol = bytes(basket.symbol);
        require(symbol.length >= 1 && symbol.length <= 20, "BAD_SYMBOL");
        for (uint256 i = 0; i < symbol.length; i++) {
            bytes1 c = symbol[i];
            bool ok = (c >= "0" && c <= "9") || (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || c == "." || c == "-" || c == "+";
            require(ok, "BAD_SYMBOL");
        }
        // "ts..." is the stock tokens' prefix; any case is reserved.
        require(symbol.length < 2 || !((symbol[0] == "t" || symbol[0] == "T") && (symbol[1] == "s" || symbol[1] == "S")), "RESERVED_SYMBOL");
        require(!registry.symbolTaken(basket.symbol), "SYMBOL_TAKEN");
    }

    /// @dev Within 1 bp, or a few base units for tiny amounts (the split's rounding).
    function _near(uint256 actual, uint256 expected) private pure returns (bool) {
        uint256 diff = actual > expected ? actual - expected : expected - actual;
        return diff <= 8 || diff * 10_000 <= expected;
    }
}
