// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @notice A weighted pool of 2-8 tokens whose share is the basket token itself (ERC20, 18 decimals).
/// Joins and exits are proportional; swaps between the pool's tokens pay a fee that stays in the pool,
/// so it is earned by every holder of the basket token.
///
/// Swap math. Balancer's weighted pool pays out = bOut * (1 - (bIn / (bIn + a))^(wIn / wOut)) for an
/// input `a` after fee, which needs a fractional pow(). This devnet pool pays
///     out = bOut * a * wIn / (bIn * wOut + a * max(wIn, wOut))
/// which has the same spot price (bOut * wIn) / (bIn * wOut), is exact when the weights are equal, and
/// never pays more than Balancer's formula (wIn >= wOut: Bernoulli, (1 + x)^r >= 1 + r x for r >= 1;
/// wIn < wOut: the weighted geometric mean of (1 + x) and 1 is at least their weighted harmonic mean).
/// So every swap keeps the weighted invariant prod(b_i ^ w_i) from falling: no round of swaps drains the pool.
contract BasketPool is ERC20, Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    uint256 public constant ONE = 1e18;
    /// @notice Basket tokens minted by the first join.
    uint256 public constant INITIAL_SUPPLY = 100e18;
    uint256 public constant MAX_SWAP_FEE = 1e17;

    address[] private _tokens;
    uint256[] private _weights;
    /// @dev Tracked balances, so that tokens sent to the pool by mistake do not change its price.
    uint256[] private _balances;
    uint256 private immutable _swapFee;
    bool public paused;

    event Joined(address indexed sender, address indexed recipient, uint256 bptOut, uint256[] amountsIn);
    event Exited(address indexed sender, address indexed recipient, uint256 bptIn, uint256[] amountsOut);
    event BasketSwap(
        address indexed sender,
        address indexed tokenIn,
        address indexed tokenOut,
        uint256 amountIn,
        uint256 amountOut,
        uint256 fee
    );
    event PausedSet(bool paused);

    constructor(
        string memory name_,
        string memory symbol_,
        address[] memory tokens_,
        uint256[] memory normalizedWeights_,
        uint256 swapFeePercentage_,
        address admin_
    ) ERC20(name_, symbol_) Ownable(admin_) {
        uint256 n = tokens_.length;
        require(n >= 2 && n <= 8, "TOKEN_COUNT");
        require(normalizedWeights_.length == n, "TOKEN_COUNT");
        require(swapFeePercentage_ <= MAX_SWAP_FEE, "MAKE_FEE");
        uint256 sum;
        for (uint256 i = 0; i < n; i++) {
            // Sorted ascending also means distinct, so each token has exactly one index.
            require(tokens_[i] != address(0), "BAD_TOKEN");
            if (i > 0) require(tokens_[i] > tokens_[i - 1], "UNSORTED_TOKENS");
            require(normalizedWeights_[i] > 0, "WEIGHT_TOO_SMALL");
            sum += normalizedWeights_[i];
        }
        require(sum == ONE, "WEIGHTS_SUM");
        _tokens = tokens_;
        _weights = normalizedWeights_;
        _balances = new uint256[](n);
        _swapFee = swapFeePercentage_;
    }

    // ---- views ----

    function getTokens() external view returns (address[] memory) {
        return _tokens;
    }

    function getNormalizedWeights() external view returns (uint256[] memory) {
        return _weights;
    }

    function getSwapFeePercentage() external view returns (uint256) {
        return _swapFee;
    }

    function getBalances() external view returns (uint256[] memory) {
        return _balances;
    }

    /// @notice What `swap` would pay now, and the fee it would keep (in tokenIn).
    function quoteSwap(address tokenIn, address tokenOut, uint256 amountIn)
        public
        view
        returns (uint256 amountOut, uint256 fee)
    {
        uint256 i = _indexOf(tokenIn);
        uint256 o = _indexOf(tokenOut);
        require(i != o, "SAME_TOKEN");
        // Fee rounded up, in the pool's favour.
        fee = Math.mulDiv(amountIn, _swapFee, ONE, Math.Rounding.Ceil);
        uint256 a = amountIn - fee;
        uint256 wIn = _weights[i];
        uint256 wOut = _weights[o];
        uint256 denominator = _balances[i] * wOut + a * Math.max(wIn, wOut);
        if (denominator == 0) return (0, fee);
        amountOut = Math.mulDiv(_balances[o], a * wIn, denominator);
    }

    // ---- admin ----

    function setPaused(bool paused_) external onlyOwner {
        paused = paused_;
        emit PausedSet(paused_);
    }

    // ---- liquidity ----

    /// @notice Proportional join: takes from the caller at most `maxAmountsIn` (in the pool's token order)
    /// and mints basket tokens to `recipient`. The first join mints INITIAL_SUPPLY and takes all of
    /// `maxAmountsIn` as the starting balances (the maker sizes them to the weights).
    function join(uint256[] calldata maxAmountsIn, uint256 minBptOut, address recipient)
        external
        nonReentrant
        returns (uint256 bptOut, uint256[] memory amountsIn)
    {
        require(!paused, "BASKET_PAUSED");
        uint256 n = _tokens.length;
        require(maxAmountsIn.length == n, "LENGTH");
        uint256 supply = totalSupply();
        amountsIn = new uint256[](n);
        if (supply == 0) {
            bptOut = INITIAL_SUPPLY;
            for (uint256 i = 0; i < n; i++) {
                require(maxAmountsIn[i] > 0, "ZERO_BALANCE");
                amountsIn[i] = maxAmountsIn[i];
            }
        } else {
            // The scarcest token sets the share bought; every token is then taken in that proportion.
            bptOut = type(uint256).max;
            for (uint256 i = 0; i < n; i++) {
                bptOut = Math.min(bptOut, Math.mulDiv(maxAmountsIn[i], supply, _balances[i]));
            }
            for (uint256 i = 0; i < n; i++) {
                // Rounded up, in the pool's favour; never above maxAmountsIn[i] since bptOut was rounded down.
                amountsIn[i] = Math.mulDiv(bptOut, _balances[i], supply, Math.Rounding.Ceil);
            }
        }
        require(bptOut > 0, "ZERO_OUT");
        require(bptOut >= minBptOut, "MIN_OUT");
        for (uint256 i = 0; i < n; i++) {
            if (amountsIn[i] == 0) continue;
            IERC20(_tokens[i]).safeTransferFrom(msg.sender, address(this), amountsIn[i]);
            _balances[i] += amountsIn[i];
        }
        _mint(recipient, bptOut);
        emit Joined(msg.sender, recipient, bptOut, amountsIn);
    }

    /// @notice Proportional exit: burns `bptIn` of the caller's basket tokens and pays `recipient` its share
    /// of every balance. Allowed while paused, so holders can always leave in kind.
    function exit(uint256 bptIn, uint256[] calldata minAmountsOut, address recipient)
        external
        nonReentrant
        returns (uint256[] memory amountsOut)
    {
        uint256 n = _tokens.length;
        require(minAmountsOut.length == n, "LENGTH");
        require(bptIn > 0, "ZERO_IN");
        uint256 supply = totalSupply();
        _burn(msg.sender, bptIn);
        amountsOut = new uint256[](n);
        for (uint256 i = 0; i < n; i++) {
            // Rounded down, in the pool's favour.
            amountsOut[i] = Math.mulDiv(_balances[i], bptIn, supply);
            require(amountsOut[i] >= minAmountsOut[i], "MIN_OUT");
            _balances[i] -= amountsOut[i];
            if (amountsOut[i] > 0) IERC20(_tokens[i]).safeTransfer(recipient, amountsOut[i]);
        }
        emit Exited(msg.sender, recipient, bptIn, amountsOut);
    }

    // ---- swaps ----

    /// @notice Sells `amountIn` of `tokenIn` (pulled from the caller) for `tokenOut`, paid to `recipient`.
    /// The whole `amountIn`, fee included, is added to the pool.
    function swap(address tokenIn, address tokenOut, uint256 amountIn, uint256 minOut, address recipient)
        external
        nonReentrant
        returns (uint256 amountOut)
    {
        require(!paused, "BASKET_PAUSED");
        require(amountIn > 0, "ZERO_IN");
        uint256 fee;
        (amountOut, fee) = quoteSwap(tokenIn, tokenOut, amountIn);
        require(amountOut > 0, "ZERO_OUT");
        require(amountOut >= minOut, "MIN_OUT");
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);
        _balances[_indexOf(tokenIn)] += amountIn;
        _balances[_indexOf(tokenOut)] -= amountOut;
        IERC20(tokenOut).safeTransfer(recipient, amountOut);
        emit BasketSwap(msg.sender, tokenIn, tokenOut, amountIn, amountOut, fee);
    }

    function _indexOf(address token) private view returns (uint256) {
        for (uint256 i = 0; i < _tokens.length; i++) if (_tokens[i] == token) return i;
        revert("BAD_TOKEN");
    }
}
