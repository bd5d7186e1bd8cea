// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {MarketRegistry} from "../core/MarketRegistry.sol";
import {Pool} from "../core/Pool.sol";
import {PriceMath} from "../core/PriceMath.sol";
import {OpenIds} from "./OpenIds.sol";

/// @notice Limit orders on the USDG pools. An order sells a token for USDG (`sellToken`) or buys a token
/// with USDG. Anyone may fill a crossed order, in parts, through the pool; the hook keeps a commission
/// of `feeBps` of each fill's output, and credits the rest to the owner, who claims it per pool token
/// (`claim0` / `claim1` / `claimBoth`, token0/token1 as sorted by the pool).
///
/// Life of an order: active (fillable) -> stopped (fully filled, cancelled or realized; nothing more is
/// filled) -> closed (stopped and nothing owed). `OrderClosed` is emitted when it becomes closed, i.e.
/// on the claim that empties it, with the reason it stopped.
/// While `paused`, no order is placed or filled; owners can still cancel, realize and claim.
contract LimitOrderHook is Ownable {
    using SafeERC20 for IERC20;
    using OpenIds for OpenIds.Set;

    uint8 public constant CLOSED_FILLED = 0;
    uint8 public constant CLOSED_CANCELLED = 1;
    uint8 public constant CLOSED_REALIZED = 2;

    struct Order {
        address owner;
        address token;
        address pool;
        bool sellToken; // true: sell the token for USDG; false: buy the token with USDG
        bool market; // placed with createMarketOrder
        bool active; // may still be filled
        bool closed; // stopped and nothing owed
        uint8 endReason; // why it stopped (CLOSED_*), meaningful once !active
        uint256 priceX18; // limit price; for market orders the pool price when placed
        uint256 amountIn; // input placed
        uint256 remaining; // input not filled yet (0 once stopped)
        uint256 filledIn; // input filled
        uint256 filledOut; // output credited, after commission
        uint256 commission; // commission taken, in the output token
        uint256 owed0; // claimable pool token0
        uint256 owed1; // claimable pool token1
    }

    MarketRegistry public immutable markets;
    address public immutable usdg;
    /// @notice Commission on each fill's output, in basis points.
    uint16 public immutable feeBps;
    /// @notice Smallest order, in USDG base units (a sell is valued at its limit price, or the pool price for a market order).
    uint256 public immutable minOrderUsdg;

    bool public paused;
    uint256 public nextId = 1;
    mapping(uint256 => Order) private _orders;
    OpenIds.Set private _openIds;
    /// @notice Commission collected per token, withdrawable by the admin.
    mapping(address => uint256) public commissions;

    event OrderPlaced(uint256 indexed id, address indexed owner, address indexed token, bool sellToken, uint256 amountIn, uint256 priceX18, bool market);
    event OrderFilled(uint256 indexed id, address indexed owner, uint256 amountIn, uint256 amountOut, uint256 commission, uint256 remaining);
    event OrderClaimable(uint256 indexed id, address indexed owner, uint256 owed0, uint256 owed1);
    event OrderClaimed(uint256 indexed id, address indexed owner, uint256 amount0, uint256 amount1);
    event OrderClosed(uint256 indexed id, address indexed owner, uint8 reason);
    event Paused(bool paused);
    event CommissionWithdrawn(address indexed token, uint256 amount);

    constructor(MarketRegistry markets_, address owner_, uint16 feeBps_, uint256 minOrderUsdg_) Ownable(owner_) {
        require(feeBps_ < 10_000, "BAD_FEE");
        markets = markets_;
        usdg = markets_.usdg();
        feeBps = feeBps_;
        minOrderUsdg = minOrderUsdg_;
    }

    // ---- admin ----

    function setPaused(bool paused_) external onlyOwner {
        paused = paused_;
        emit Paused(paused_);
    }

    /// @notice Pays the collected commission in `token` to the admin.
    function withdrawCommission(address token) external onlyOwner {
        uint256 amount = commissions[token];
        commissions[token] = 0;
        IERC20(token).safeTransfer(msg.sender, amount);
        emit CommissionWithdrawn(token, amount);
    }

    // ---- owner actions ----

    /// @notice Places a limit order, pulling `amountIn` of the input (the token if `sellToken`, else USDG).
    /// A sell fills when the pool price is at or above `priceX18`, a buy when at or below.
    function create(address token, bool sellToken, uint256 amountIn, uint256 priceX18) external returns (uint256 id) {
        require(priceX18 > 0, "BAD_PRICE");
        Pool pool = _placeChecks(token);
        _checkSize(pool, sellToken, amountIn, priceX18);
        id = _place(pool, token, sellToken, amountIn, priceX18, false);
        _openIds.add(id);
    }

    /// @notice Sells or buys at once through the pool; the output less commission (at least
    /// `minAmountOut`, which is net of the commission) becomes claimable. The order is stopped (filled)
    /// right away; its recorded and emitted `priceX18` is the pool price before the trade.
    function createMarketOrder(address token, bool sellToken, uint256 amountIn, uint256 minAmountOut) external returns (uint256 id) {
        Pool pool = _placeChecks(token);
        uint256 spot = pool.priceX18();
        _checkSize(pool, sellToken, amountIn, spot);
        id = _place(pool, token, sellToken, amountIn, spot, true);
        uint256 net = _fill(id, amountIn, 0);
        require(net >= minAmountOut, "SLIPPAGE");
    }

    /// @notice Stops an active order; its unfilled input becomes claimable.
    function cancel(uint256 id) external {
        Order storage o = _owned(id);
        require(o.active, "ORDER_CLOSED");
        _stop(id, o, CLOSED_CANCELLED);
    }

    /// @notice Realizes a partly filled order: it stops taking fills, keeps what was filled, and
    /// everything it holds (the output credited so far and the unfilled input) becomes claimable.
    /// Same effect on funds as `cancel`, but only for an order with at least one fill, and it closes
    /// with reason 2 (realized) instead of 1 (cancelled). Reverts NOTHING_FILLED before any fill.
    function realize(uint256 id) external {
        Order storage o = _owned(id);
        require(o.active, "ORDER_CLOSED");
        require(o.filledIn > 0, "NOTHING_FILLED");
        _stop(id, o, CLOSED_REALIZED);
    }

    /// @notice Pays the owed pool token0 to the owner.
    function claim0(uint256 id) external {
        _claim(id, true, false);
    }

    /// @notice Pays the owed pool token1 to the owner.
    function claim1(uint256 id) external {
        _claim(id, false, true);
    }

    /// @notice Pays both owed pool tokens to the owner.
    function claimBoth(uint256 id) external {
        _claim(id, true, true);
    }

    // ---- keeper / anyone ----

    /// @notice Fills `amountIn` of a crossed order's input (0 or more than remains: all of it) through the
    /// pool, at no worse than the limit price (before commission).
    function fill(uint256 id, uint256 amountIn) external returns (uint256 amountOut) {
        require(!paused, "PAUSED");
        Order storage o = _orders[id];
        require(o.active, "ORDER_CLOSED");
        uint256 spot = Pool(o.pool).priceX18();
        require(o.sellToken ? spot >= o.priceX18 : spot <= o.priceX18, "NOT_CROSSED");
        if (amountIn == 0 || amountIn > o.remaining) amountIn = o.remaining;
        uint8 decimals = Pool(o.pool).tokenDecimals();
        uint256 minOut = o.sellToken
            ? PriceMath.toUsdg(amountIn, decimals, o.priceX18)
            : PriceMath.toToken(amountIn, decimals, o.priceX18);
        amountOut = _fill(id, amountIn, minOut);
    }

    // ---- views ----

    function orders(uint256 id) external view returns (Order memory) {
        return _orders[id];
    }

    /// @notice Ids of the orders that may still be filled (the keeper's view).
    function openOrderIds() external view returns (uint256[] memory) {
        return _openIds.ids;
    }

    // ---- internals ----

    function _placeChecks(address token) private view returns (Pool pool) {
        require(!paused, "PAUSED");
        pool = Pool(markets.poolOf(token));
        require(address(pool) != address(0), "MARKET_NOT_OPEN");
    }

    function _checkSize(Pool pool, bool sellToken, uint256 amountIn, uint256 priceX18) private view {
        uint256 valueUsdg = sellToken ? PriceMath.toUsdg(amountIn, pool.tokenDecimals(), priceX18) : amountIn;
        require(amountIn > 0 && valueUsdg >= minOrderUsdg, "AMOUNT_TOO_SMALL");
    }

    function _place(Pool pool, address token, bool sellToken, uint256 amountIn, uint256 priceX18, bool market)
        private
        returns (uint256 id)
    {
        id = nextId++;
        Order storage o = _orders[id];
        o.owner = msg.sender;
        o.token = token;
        o.pool = address(pool);
        o.sellToken = sellToken;
        o.market = market;
        o.active = true;
        o.priceX18 = priceX18;
        o.amountIn = amountIn;
        o.remaining = amountIn;
        IERC20(sellToken ? token : usdg).safeTransferFrom(msg.sender, address(this), amountIn);
        emit OrderPlaced(id, msg.sender, token, sellToken, amountIn, priceX18, market);
    }

    /// @dev Swaps `amountIn` of the order's input, keeps the commission and credits the rest.
    function _fill(uint256 id, uint256 amountIn, uint256 minOut) private returns (uint256 net) {
        Order storage o = _orders[id];
        (address tokenIn, address tokenOut) = o.sellToken ? (o.token, usdg) : (usdg, o.token);
        IERC20(tokenIn).forceApprove(o.pool, amountIn);
        uint256 gross = Pool(o.pool).swap(tokenIn, amountIn, minOut, address(this));
        uint256 commission = gross * feeBps / 10_000;
        net = gross - commission;
        commissions[tokenOut] += commission;
        o.remaining -= amountIn;
        o.filledIn += amountIn;
        o.filledOut += net;
        o.commission += commission;
        _credit(o, tokenOut, net);
        emit OrderFilled(id, o.owner, amountIn, net, commission, o.remaining);
        if (o.remaining == 0) {
            o.active = false;
            o.endReason = CLOSED_FILLED;
            _openIds.remove(id);
        }
        emit OrderClaimable(id, o.owner, o.owed0, o.owed1);
    }

    function _stop(uint256 id, Order storage o, uint8 reason) private {
        o.active = false;
        o.endReason = reason;
        _openIds.remove(id);
        if (o.remaining > 0) {
            _credit(o, o.sellToken ? o.token : usdg, o.remaining);
            o.remaining = 0;
        }
        emit OrderClaimable(id, o.owner, o.owed0, o.owed1);
    }

    function _credit(Order storage o, address token, uint256 amount) private {
        if (token == Pool(o.pool).token0()) o.owed0 += amount;
        else o.owed1 += amount;
    }

    function _claim(uint256 id, bool want0, bool want1) private {
        Order storage o = _owned(id);
        require(!o.closed, "ORDER_CLOSED");
        uint256 amount0 = want0 ? o.owed0 : 0;
        uint256 amount1 = want1 ? o.owed1 : 0;
        require(amount0 + amount1 > 0, "NOTHING_TO_CLAIM");
        if (amount0 > 0) {
            o.owed0 = 0;
            IERC20(Pool(o.pool).token0()).safeTransfer(msg.sender, amount0);
        }
        if (amount1 > 0) {
            o.owed1 = 0;
            IERC20(Pool(o.pool).token1()).safeTransfer(msg.sender, amount1);
        }
        emit OrderClaimed(id, msg.sender, amount0, amount1);
        if (!o.active && o.owed0 == 0 && o.owed1 == 0) {
            o.closed = true;
            emit OrderClosed(id, msg.sender, o.endReason);
        }
    }

    function _owned(uint256 id) private view returns (Order storage o) {
        o = _orders[id];
        require(o.owner == msg.sender, "NOT_OWNER");
    }
}
