// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {MarketRegistry} from "../core/MarketRegistry.sol";
import {Pool} from "../core/Pool.sol";
import {PriceMath} from "../core/PriceMath.sol";
import {OpenIds} from "./OpenIds.sol";

/// @notice Grids: one buy line and one sell line on a USDG pool. A grid holding USDG buys the token when
/// the pool would fill at or below the buy line; holding the token, it sells when the pool would fill at
/// or above the sell line; with `repeat` it goes on (buy -> sell -> buy ...), without it stops after a sell.
/// Anyone may `poke` a crossed grid. The strategy fee (`feeBps` of each trade's USDG side) is kept in USDG:
/// taken from the USDG put into a buy, and from the USDG received by a sell.
///
/// Each buy spends at most the grid's starting `amountUsdg`; USDG above what the grid needs is realised
/// profit, which the owner may `collect` while the grid runs.
contract GridStrategy is Ownable {
    using SafeERC20 for IERC20;
    using OpenIds for OpenIds.Set;

    struct GridParams {
        address token;
        uint256 buyPriceX18;
        uint256 sellPriceX18;
        uint256 amountUsdg;
        bool repeat;
    }

    struct Grid {
        address owner;
        address token;
        address pool;
        uint256 buyPriceX18;
        uint256 sellPriceX18;
        uint256 amountUsdg; // starting USDG, the most a buy spends
        bool repeat;
        bool active; // trades when crossed (false once stopped or closed)
        bool closed; // paid out
        bool holdsToken; // waiting to sell (true) or to buy (false)
        uint256 usdg; // USDG held
        uint256 tokens; // token held
        uint256 costUsdg; // USDG spent (fee included) on the token held now
        uint256 trades;
        uint256 fees; // fees paid, in USDG
    }

    MarketRegistry public immutable markets;
    address public immutable usdg;
    /// @notice Fee on each trade, in basis points of its USDG side.
    uint16 public immutable feeBps;
    /// @notice Smallest grid, in USDG base units.
    uint256 public immutable minAmountUsdg;

    bool public paused;
    uint256 public nextId = 1;
    /// @notice Fees collected, withdrawable by the admin.
    uint256 public feesUsdg;
    mapping(uint256 => Grid) private _grids;
    OpenIds.Set private _openIds;

    event GridOpened(uint256 indexed id, address indexed owner, address indexed token, uint256 buyPriceX18, uint256 sellPriceX18, uint256 amountUsdg, bool repeat);
    event GridTraded(uint256 indexed id, address indexed owner, bool buy, uint256 amountIn, uint256 amountOut, uint256 fee);
    event GridRepeatSet(uint256 indexed id, address indexed owner, bool repeat);
    event GridCollected(uint256 indexed id, address indexed owner, uint256 amountUsdg);
    event GridClosed(uint256 indexed id, address indexed owner, uint256 usdgOut, uint256 tokenOut);
    event Paused(bool paused);
    event FeesWithdrawn(uint256 amount);

    constructor(MarketRegistry markets_, address owner_, uint16 feeBps_, uint256 minAmountUsdg_) Ownable(owner_) {
        require(feeBps_ < 10_000, "BAD_FEE");
        markets = markets_;
        usdg = markets_.usdg();
        feeBps = feeBps_;
        minAmountUsdg = minAmountUsdg_;
    }

    // ---- admin ----

    function setPaused(bool paused_) external onlyOwner {
        paused = paused_;
        emit Paused(paused_);
    }

    function withdrawFees() external onlyOwner {
        uint256 amount = feesUsdg;
        feesUsdg = 0;
        IERC20(usdg).safeTransfer(msg.sender, amount);
        emit FeesWithdrawn(amount);
    }

    // ---- owner actions ----

    /// @notice Opens a grid with `p.amountUsdg` USDG (approve it first); it waits to buy at the buy line.
    function open(GridParams calldata p) external returns (uint256 id) {
        id = _create(p);
    }

    /// @notice Opens a grid and buys the token at once (at least `minTokenOut`); it waits to sell at the sell line.
    function openWithMarket(GridParams calldata p, uint256 minTokenOut) external returns (uint256 id) {
        id = _create(p);
        Grid storage g = _grids[id];
        _buy(id, g, minTokenOut);
    }

    /// @notice Stops the grid and pays all its USDG and token to the owner.
    function close(uint256 id) external {
        Grid storage g = _owned(id);
        require(!g.closed, "GRID_CLOSED");
        (uint256 usdgOut, uint256 tokenOut) = (g.usdg, g.tokens);
        g.closed = true;
        g.active = false;
        g.usdg = 0;
        g.tokens = 0;
        g.costUsdg = 0;
        _openIds.remove(id);
        if (usdgOut > 0) IERC20(usdg).safeTransfer(msg.sender, usdgOut);
        if (tokenOut > 0) IERC20(g.token).safeTransfer(msg.sender, tokenOut);
        emit GridClosed(id, msg.sender, usdgOut, tokenOut);
    }

    /// @notice Turns repeating on or off. Turning it on restarts a grid that had stopped after its sell.
    function setRepeat(uint256 id, bool repeat) external {
        Grid storage g = _owned(id);
        require(!g.closed, "GRID_CLOSED");
        g.repeat = repeat;
        if (repeat && !g.active) {
            g.active = true;
            _openIds.add(id);
        }
        emit GridRepeatSet(id, msg.sender, repeat);
    }

    /// @notice Pays the realised profit (USDG above the starting amount) to the owner.
    function collect(uint256 id) external {
        Grid storage g = _owned(id);
        require(!g.closed, "GRID_CLOSED");
        uint256 amount = collectable(id);
        require(amount > 0, "NOTHING_TO_COLLECT");
        g.usdg -= amount;
        IERC20(usdg).safeTransfer(msg.sender, amount);
        emit GridCollected(id, msg.sender, amount);
    }

    // ---- keeper / anyone ----

    /// @notice Trades a crossed line: buys (holding USDG) or sells (holding the token) through the pool,
    /// at no worse than the line (before the strategy fee). Reverts NOT_CROSSED when the pool would not.
    function poke(uint256 id) external {
        require(!paused, "PAUSED");
        Grid storage g = _grids[id];
        require(g.active, "GRID_CLOSED");
        uint8 decimals = Pool(g.pool).tokenDecimals();
        if (g.holdsToken) {
            uint256 minOut = PriceMath.toUsdg(g.tokens, decimals, g.sellPriceX18);
            require(Pool(g.pool).quote(g.token, g.tokens) >= minOut, "NOT_CROSSED");
            _sell(id, g, minOut);
        } else {
            uint256 spend = _buySpend(g);
            uint256 minOut = PriceMath.toToken(spend - spend * feeBps / 10_000, decimals, g.buyPriceX18);
            require(Pool(g.pool).quote(usdg, spend - spend * feeBps / 10_000) >= minOut, "NOT_CROSSED");
            _buy(id, g, minOut);
        }
    }

    // ---- views ----

    function grids(uint256 id) external view returns (Grid memory) {
        return _grids[id];
    }

    /// @notice Ids of the grids that trade when crossed (the keeper's view).
    function openGridIds() external view returns (uint256[] memory) {
        return _openIds.ids;
    }

    /// @notice Realised profit the owner may collect now: USDG held plus the cost of the token held,
    /// above the starting amount (never more than the USDG held).
    function collectable(uint256 id) public view returns (uint256) {
        Grid storage g = _grids[id];
        uint256 worth = g.usdg + (g.holdsToken ? g.costUsdg : 0);
        if (worth <= g.amountUsdg) return 0;
        uint256 profit = worth - g.amountUsdg;
        return profit < g.usdg ? profit : g.usdg;
    }

    // ---- internals ----

    function _create(GridParams calldata p) private returns (uint256 id) {
        require(!paused, "PAUSED");
        address pool = markets.poolOf(p.token);
        require(pool != address(0), "MARKET_NOT_OPEN");
        require(p.buyPriceX18 > 0 && p.sellPriceX18 > p.buyPriceX18, "BAD_LINES");
        require(p.amountUsdg >= minAmountUsdg, "AMOUNT_TOO_SMALL");
        id = nextId++;
        Grid storage g = _grids[id];
        g.owner = msg.sender;
        g.token = p.token;
        g.pool = pool;
        g.buyPriceX18 = p.buyPriceX18;
        g.sellPriceX18 = p.sellPriceX18;
        g.amountUsdg = p.amountUsdg;
        g.repeat = p.repeat;
        g.active = true;
        g.usdg = p.amountUsdg;
        _openIds.add(id);
        IERC20(usdg).safeTransferFrom(msg.sender, address(this), p.amountUsdg);
        emit GridOpened(id, msg.sender, p.token, p.buyPriceX18, p.sellPriceX18, p.amountUsdg, p.repeat);
    }

    /// @dev A buy spends at most the starting amount, so profit above it stays collectable.
    function _buySpend(Grid storage g) private view returns (uint256) {
        return g.usdg < g.amountUsdg ? g.usdg : g.amountUsdg;
    }

    function _buy(uint256 id, Grid storage g, uint256 minOut) private {
        uint256 spend = _buySpend(g);
        uint256 fee = spend * feeBps / 10_000;
        IERC20(usdg).forceApprove(g.pool, spend - fee);
        uint256 out = Pool(g.pool).swap(usdg, spend - fee, minOut, address(this));
        g.usdg -= spend;
        g.tokens += out;
        g.costUsdg = spend;
        g.holdsToken = true;
        _traded(id, g, true, spend, out, fee);
    }

    function _sell(uint256 id, Grid storage g, uint256 minOut) private {
        uint256 amountIn = g.tokens;
        IERC20(g.token).forceApprove(g.pool, amountIn);
        uint256 gross = Pool(g.pool).swap(g.token, amountIn, minOut, address(this));
        uint256 fee = gross * feeBps / 10_000;
        g.tokens = 0;
        g.usdg += gross - fee;
        g.costUsdg = 0;
        g.holdsToken = false;
        _traded(id, g, false, amountIn, gross - fee, fee);
        if (!g.repeat) {
            // One round trip done: stop trading; the owner collects or closes.
            g.active = false;
            _openIds.remove(id);
        }
    }

    function _traded(uint256 id, Grid storage g, bool buy, uint256 amountIn, uint256 amountOut, uint256 fee) private {
        feesUsdg += fee;
        g.fees += fee;
        g.trades++;
        emit GridTraded(id, g.owner, buy, amountIn, amountOut, fee);
    }

    function _owned(uint256 id) private view returns (Grid storage g) {
        g = _grids[id];
        require(g.owner == msg.sender, "NOT_OWNER");
    }
}
