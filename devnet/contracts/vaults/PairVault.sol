// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {MarketRegistry} from "../core/MarketRegistry.sol";
import {Pool} from "../core/Pool.sol";
import {PriceMath} from "../core/PriceMath.sol";
import {VaultAdmin} from "./VaultAdmin.sol";

/// @notice Base of the merged and up vaults: 12-decimal shares over a USDG + token pair. The vault
/// keeps its own books (`usdgAssets`, `tokenAssets`) so queued deposits and stray transfers never
/// count as shareholder value. Value = USDG + token at the market's spot price.
abstract contract PairVault is ERC20, VaultAdmin, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @dev 1 share (1e12) is worth 1 USDG (1e6) at the start: 1e6 virtual shares against 1 virtual unit.
    uint256 private constant VIRTUAL_SHARES = 1e6;
    /// @dev A rebalance trades at most this share of the pool's USDG reserve (keeps price impact ~1%).
    uint256 public constant MAX_REBALANCE_BPS_OF_POOL = 50;

    IERC20 public immutable usdg;
    IERC20 public immutable token;
    uint8 public immutable tokenDecimals;
    MarketRegistry public immutable markets;
    Pool public immutable pool;
    address public immutable aggregator;

    /// @notice USDG and token owned by the shareholders.
    uint256 public usdgAssets;
    uint256 public tokenAssets;
    /// @notice The liquidity range the vault provides in (priceX18), for display.
    uint256 public rangeLowerX18;
    uint256 public rangeUpperX18;

    event Redeemed(address indexed owner, address indexed receiver, uint256 shares, uint256 usdgOut, uint256 tokenOut);
    event Rebalanced(address indexed tokenIn, uint256 amountIn, uint256 amountOut, uint256 usdgAssets, uint256 tokenAssets);
    event RangeChanged(uint256 rangeLowerX18, uint256 rangeUpperX18);

    constructor(
        string memory name_,
        string memory symbol_,
        MarketRegistry markets_,
        address token_,
        address aggregator_,
        address keeper_,
        address owner_
    ) ERC20(name_, symbol_) VaultAdmin(keeper_, owner_) {
        markets = markets_;
        usdg = IERC20(markets_.usdg());
        token = IERC20(token_);
        tokenDecimals = IERC20Metadata(token_).decimals();
        pool = Pool(markets_.poolOf(token_));
        require(address(pool) != address(0), "NO_MARKET");
        aggregator = aggregator_;
    }

    function decimals() public pure override returns (uint8) {
        return 12;
    }

    // ---- views ----

    /// @notice Shareholder value in USDG base units.
    function totalAssets() public view returns (uint256) {
        return usdgAssets + PriceMath.toUsdg(tokenAssets, tokenDecimals, markets.priceX18(address(token)));
    }

    function convertToShares(uint256 assets) public view returns (uint256) {
        return Math.mulDiv(assets, totalSupply() + VIRTUAL_SHARES, totalAssets() + 1);
    }

    function convertToAssets(uint256 shares) public view returns (uint256) {
        return Math.mulDiv(shares, totalAssets() + 1, totalSupply() + VIRTUAL_SHARES);
    }

    /// @notice The pro-rata parts `shares` redeem in kind now.
    function previewRedeemInKind(uint256 shares) public view returns (uint256 tokenOut, uint256 usdgOut) {
        uint256 supply = totalSupply();
        if (supply == 0) return (0, 0);
        tokenOut = Math.mulDiv(tokenAssets, shares, supply);
        usdgOut = Math.mulDiv(usdgAssets, shares, supply);
    }

    /// @notice USDG that `shares` redeem now with the token part sold on the pool (what the queues pay).
    function previewRedeem(uint256 shares) public view returns (uint256 usdgOut) {
        (uint256 tokenOut, uint256 usdgPart) = previewRedeemInKind(shares);
        usdgOut = usdgPart + (tokenOut == 0 ? 0 : pool.quote(address(token), tokenOut));
    }

    /// @notice Share of the value held in the token, in basis points (the keeper rebalances on it).
    function tokenWeightBps() external view returns (uint256) {
        uint256 total = totalAssets();
        return total == 0 ? 0 : (total - usdgAssets) * 10_000 / total;
    }

    // ---- admin and keeper ----

    function setRange(uint256 lowerX18, uint256 upperX18) external onlyOwner {
        require(lowerX18 < upperX18, "BAD_RANGE");
        rangeLowerX18 = lowerX18;
        rangeUpperX18 = upperX18;
        emit RangeChanged(lowerX18, upperX18);
    }

    /// @notice Keeper: pulls `usdgIn` fee income from the keeper; `feeBps` of it goes to the admin,
    /// the rest raises the share price.
    function harvest(uint256 usdgIn) external onlyKeeper {
        usdg.safeTransferFrom(msg.sender, address(this), usdgIn);
        uint256 fee = _harvestFee(usdgIn);
        if (fee > 0) usdg.safeTransfer(owner(), fee);
        usdgAssets += usdgIn - fee;
        emit Harvested(usdgIn, fee, totalAssets(), totalSupply());
    }

    /// @notice Keeper: trades on the pool towards `targetTokenBps` of the value in the token, at most
    /// MAX_REBALANCE_BPS_OF_POOL of the pool's USDG reserve per call. No-op when within 1 USDG.
    function rebalance(uint256 targetTokenBps) external onlyKeeper returns (uint256 amountIn, uint256 amountOut) {
        require(targetTokenBps <= 10_000, "BAD_TARGET");
        uint256 price = markets.priceX18(address(token));
        uint256 tokenValue = PriceMath.toUsdg(tokenAssets, tokenDecimals, price);
        uint256 target = (usdgAssets + tokenValue) * targetTokenBps / 10_000;
        (, uint256 poolUsdg) = pool.getReserves();
        uint256 maxTrade = poolUsdg * MAX_REBALANCE_BPS_OF_POOL / 10_000;
        if (tokenValue + 1e6 < target) {
            amountIn = Math.min(Math.min(target - tokenValue, maxTrade), usdgAssets);
            amountOut = _swapOnPool(usdg, amountIn);
            if (amountOut == 0) return (0, 0);
            usdgAssets -= amountIn;
            tokenAssets += amountOut;
            emit Rebalanced(address(usdg), amountIn, amountOut, usdgAssets, tokenAssets);
        } else if (tokenValue > target + 1e6) {
            uint256 sellValue = Math.min(tokenValue - target, maxTrade);
            amountIn = Math.min(PriceMath.toToken(sellValue, tokenDecimals, price), tokenAssets);
            amountOut = _swapOnPool(token, amountIn);
            if (amountOut == 0) return (0, 0);
            tokenAssets -= amountIn;
            usdgAssets += amountOut;
            emit Rebalanced(address(token), amountIn, amountOut, usdgAssets, tokenAssets);
        }
    }

    /// @notice The exit queue: burns `shares` it holds for `owner`, sells the token part on the pool and
    /// pays `receiver` in USDG.
    function redeemForQueue(uint256 shares, address owner_, address receiver, uint256 minUsdgOut)
        external
        nonReentrant
        returns (uint256 usdgOut)
    {
        require(msg.sender == _exitQueue() && msg.sender != address(0), "NOT_QUEUE");
        (uint256 tokenPart, uint256 usdgPart) = _takeShares(msg.sender, shares);
        usdgOut = usdgPart;
        if (tokenPart > 0) usdgOut += _swapOnPool(token, tokenPart);
        require(usdgOut >= minUsdgOut, "MIN_OUT");
        usdg.safeTransfer(receiver, usdgOut);
        emit Redeemed(owner_, receiver, shares, usdgOut, 0);
    }

    // ---- internals ----

    /// @dev The queue allowed to call `redeemForQueue` (zero: none).
    function _exitQueue() internal view virtual returns (address);

    /// @dev Adds `assets` USDG (already held by the vault) and mints shares for them at the current price.
    function _mintForDeposit(uint256 assets, address receiver) internal returns (uint256 shares) {
        shares = convertToShares(assets);
        require(shares > 0, "ZERO_SHARES");
        usdgAssets += assets;
        _mint(receiver, shares);
    }

    /// @dev Burns `shares` of `owner_` and takes their pro-rata token and USDG off the books.
    function _takeShares(address owner_, uint256 shares) internal returns (uint256 tokenPart, uint256 usdgPart) {
        require(shares > 0, "ZERO_SHARES");
        (tokenPart, usdgPart) = previewRedeemInKind(shares);
        _burn(owner_, shares);
        tokenAssets -= tokenPart;
        usdgAssets -= usdgPart;
    }

    function _redeemInKind(uint256 shares, address receiver, uint256 minTokenOut, uint256 minUsdgOut)
        internal
        returns (uint256 tokenOut, uint256 usdgOut)
    {
        require(receiver != address(0), "ZERO_RECEIVER");
        (tokenOut, usdgOut) = _takeShares(msg.sender, shares);
        require(tokenOut >= minTokenOut && usdgOut >= minUsdgOut, "MIN_OUT");
        if (tokenOut > 0) token.safeTransfer(receiver, tokenOut);
        if (usdgOut > 0) usdg.safeTransfer(receiver, usdgOut);
        emit Redeemed(msg.sender, receiver, shares, usdgOut, tokenOut);
    }

    /// @dev Sells `amountIn` of `tokenIn` (USDG or the token) on the pool to this vault. Dust the pool
    /// would pay nothing for is not sold (returns 0; the caller decides).
    function _swapOnPool(IERC20 tokenIn, uint256 amountIn) internal returns (uint256 amountOut) {
        if (amountIn == 0 || pool.quote(address(tokenIn), amountIn) == 0) return 0;
        tokenIn.forceApprove(address(pool), amountIn);
        amountOut = pool.swap(address(tokenIn), amountIn, 0, address(this));
    }
}
