// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {MarketRegistry} from "../core/MarketRegistry.sol";
import {Pool} from "../core/Pool.sol";
import {PriceMath} from "../core/PriceMath.sol";
import {OpenIds} from "./OpenIds.sol";

/// @notice Ladder strategies (not the limit-order ladder): 1-16 parts ("legs") on one listed market, each
/// with its own buy line and sell line, opened together with one approval of the total.
///
/// A leg holds either USDG (waiting to buy at its buy line) or the token (waiting to sell at its sell
/// line). A buy-first leg starts with `amount` USDG, a sell-first leg with `amount` of the token (its
/// "start side"). Anyone may `poke` a ladder: each leg whose line the pool would fill (at no worse than
/// the line, before the strategy fee) trades once. After a trade, a leg
///   - finishes after a sell if the ladder is `oneWay`;
///   - finishes when it is back on its start side (a round trip done) unless that side repeats;
///   - otherwise waits on the other line.
/// On its start side a leg trades at most `amount`; anything above it is profit, collectable any time.
/// The strategy fee (`feeBps`) is kept in USDG: from the USDG put into a buy, from the USDG a sell receives.
///
/// Masks (`close`, `setRepeat`, `collect`): bit 0 (1) = the token side, bit 1 (2) = the USDG side.
///   - `collect(id, mask)` (1-3) pays the owner what is collectable on the chosen sides: everything a
///     finished leg (or a closed ladder) holds, and a running leg's profit / balance it does not need.
///   - `close(id, mask)` (0-3) finishes every leg and stops the ladder; mask 0 leaves all funds to
///     `collect` later, set bits also pay those sides out at once.
///   - `setRepeat(id, mask)` (1-3) sets which sides re-arm after a round trip: bit 1 = a leg back on USDG
///     buys again (what repeat means for a buy-first ladder), bit 0 = a leg back on the token sells again
///     (repeat for a sell-first ladder). So setRepeat(id, 1) stops a buy-first ladder from repeating and
///     setRepeat(id, 2) stops a sell-first one; 3 repeats either. `open(..., repeat)` sets 3 or 0.
///
/// Refusals of `open`: strings PAUSED, NOT_LISTED, MARKET_NOT_OPEN, NO_LEGS, TOO_MANY_LEGS, NO_REFERENCE;
/// the per-leg ones are custom errors named exactly like the API codes, carrying the leg index (from 0)
/// and the exact bound, so the service can name the part and its minimum without recomputing it.
contract LadderStrategy is Ownable {
    using SafeERC20 for IERC20;
    using OpenIds for OpenIds.Set;

    /// @notice A buy-first leg's buy line is not below the price now (or is 0), or a sell-first leg's
    /// sell line is not above it. `priceX18` is the price now.
    error WRONG_SIDE(uint256 leg, uint256 priceX18);
    /// @notice Leg 0 is under `minFirstLegUsdg()`; `minimum` is in the leg's unit (USDG for buy-first,
    /// token base units at the leg's sell line, rounded up, for sell-first).
    error FIRST_TOO_SMALL(uint256 leg, uint256 minimum);
    /// @notice A later leg is under `minFollowUpUsdg()`; `minimum` as for FIRST_TOO_SMALL.
    error FOLLOW_UP_TOO_SMALL(uint256 leg, uint256 minimum);
    /// @notice sell/buy - 1 must exceed 2 x feeBps; `minimumSellPriceX18` is the lowest sell line that passes.
    error NO_TRIP_HEADROOM(uint256 leg, uint256 minimumSellPriceX18);

    uint8 public constant TOKEN_SIDE = 1;
    uint8 public constant USDG_SIDE = 2;
    uint256 public constant maxLegs = 16;

    struct Leg {
        uint256 buyPriceX18;
        uint256 sellPriceX18;
        uint256 amount; // USDG for a buy-first ladder, the token for sell-first
    }

    struct LegState {
        uint256 buyPriceX18;
        uint256 sellPriceX18;
        uint256 amount; // stake on the start side
        uint256 usdg; // USDG held
        uint256 tokens; // token held
        bool holdsToken; // waiting to sell (true) or to buy (false)
        bool finished; // trades no more
        uint256 trades;
    }

    struct Ladder {
        address owner;
        address token;
        address pool;
        bool sellFirst;
        bool oneWay;
        uint8 repeatMask; // sides that re-arm (see setRepeat)
        bool active; // some leg still trades
        bool closed; // closed by the owner
        uint256 legs;
        uint256 total; // amount pulled at open
        uint256 fees; // fees paid, in USDG
    }

    MarketRegistry public immutable registry;
    address public immutable usdg;
    /// @notice Fee on each trade, in basis points of its USDG side.
    uint16 public immutable feeBps;
    /// @notice Leg 0's minimum, in USDG base units.
    uint256 public immutable minFirstLegUsdg;
    /// @notice Every later leg's minimum, in USDG base units.
    uint256 public immutable minFollowUpUsdg;

    bool public paused;
    uint256 public nextId = 1;
    /// @notice Fees collected, withdrawable by the admin.
    uint256 public feesUsdg;
    mapping(address => bool) public isListed;
    mapping(address => bool) public marketOpen;
    /// @notice Whether the admin may close the market (stock tokens: market hours).
    mapping(address => bool) public pausable;
    address[] private _markets;
    mapping(uint256 => Ladder) private _ladders;
    mapping(uint256 => LegState[]) private _legs;
    OpenIds.Set private _openIds;

    event LadderOpened(uint256 indexed id, address indexed owner, address indexed token, uint256 legs, bool sellFirst, bool repeat, bool oneWay, uint256 total);
    event LadderTraded(uint256 indexed id, address indexed owner, uint256 leg, bool buy, uint256 amountIn, uint256 amountOut, uint256 fee);
    event LadderLegFinished(uint256 indexed id, address indexed owner, uint256 leg);
    event LadderRepeatSet(uint256 indexed id, address indexed owner, uint8 mask);
    event LadderCollected(uint256 indexed id, address indexed owner, uint256 tokenOut, uint256 usdgOut);
    event LadderClosed(uint256 indexed id, address indexed owner, uint8 mask);
    event MarketListed(address indexed token, bool pausable);
    event MarketOpenSet(address indexed token, bool open);
    event Paused(bool paused);
    event FeesWithdrawn(uint256 amount);

    constructor(MarketRegistry registry_, address owner_, uint16 feeBps_, uint256 minFirstLegUsdg_, uint256 minFollowUpUsdg_)
        Ownable(owner_)
    {
        require(feeBps_ < 5_000, "BAD_FEE");
        registry = registry_;
        usdg = registry_.usdg();
        feeBps = feeBps_;
        minFirstLegUsdg = minFirstLegUsdg_;
        minFollowUpUsdg = minFollowUpUsdg_;
    }

    // ---- admin ----

    /// @notice Lists `token`'s USDG pool as a ladder market, open.
    function listMarket(address token, bool pausable_) external onlyOwner {
        require(registry.poolOf(token) != address(0), "NO_POOL");
        if (!isListed[token]) {
            isListed[token] = true;
            _markets.push(token);
        }
        pausable[token] = pausable_;
        marketOpen[token] = true;
        emit MarketListed(token, pausable_);
        emit MarketOpenSet(token, true);
    }

    /// @notice Opens or closes a listed market; only a pausable market can be closed. A closed market
    /// takes no new ladders and its ladders do not trade; owners may still close and collect.
    function setMarketOpen(address token, bool open_) external onlyOwner {
        require(isListed[token], "NOT_LISTED");
        require(open_ || pausable[token], "NOT_PAUSABLE");
        marketOpen[token] = open_;
        emit MarketOpenSet(token, open_);
    }

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

    /// @notice Opens a ladder of `legs` on `token`, pulling the total of the legs' amounts (USDG, or the
    /// token if `sellFirst`) from the caller, who becomes its owner.
    function open(address token, Leg[] calldata legs, bool sellFirst, bool repeat, bool oneWay) external returns (uint256 id) {
        uint256 total = _checkOpen(token, legs, sellFirst);
        id = nextId++;
        Ladder storage l = _ladders[id];
        l.owner = msg.sender;
        l.token = token;
        l.pool = registry.poolOf(token);
        l.sellFirst = sellFirst;
        l.oneWay = oneWay;
        l.repeatMask = repeat ? TOKEN_SIDE | USDG_SIDE : 0;
        l.active = true;
        l.legs = legs.length;
        l.total = total;
        for (uint256 i = 0; i < legs.length; i++) {
            LegState storage s = _legs[id].push();
            s.buyPriceX18 = legs[i].buyPriceX18;
            s.sellPriceX18 = legs[i].sellPriceX18;
            s.amount = legs[i].amount;
            s.holdsToken = sellFirst;
            if (sellFirst) s.tokens = legs[i].amount;
            else s.usdg = legs[i].amount;
        }
        _openIds.add(id);
        IERC20(sellFirst ? token : usdg).safeTransferFrom(msg.sender, address(this), total);
        emit LadderOpened(id, msg.sender, token, legs.length, sellFirst, repeat, oneWay, total);
    }

    /// @notice Finishes every leg and stops the ladder; pays out the sides in `mask` (0-3, see the contract notes).
    function close(uint256 id, uint8 mask) external {
        require(mask <= 3, "BAD_MASK");
        Ladder storage l = _owned(id);
        require(!l.closed, "LADDER_CLOSED");
        LegState[] storage legs = _legs[id];
        for (uint256 i = 0; i < legs.length; i++) {
            if (!legs[i].finished) _finish(id, l, legs[i], i);
        }
        l.closed = true;
        l.active = false;
        _openIds.remove(id);
        if (mask != 0) _collect(id, l, mask);
        emit LadderClosed(id, msg.sender, mask);
    }

    /// @notice Sets which sides re-arm after a round trip (`mask` 1-3, see the contract notes).
    function setRepeat(uint256 id, uint8 mask) external {
        require(mask >= 1 && mask <= 3, "BAD_MASK");
        Ladder storage l = _owned(id);
        require(!l.closed, "LADDER_CLOSED");
        l.repeatMask = mask;
        emit LadderRepeatSet(id, msg.sender, mask);
    }

    /// @notice Pays what is collectable on the sides in `mask` (1-3) to the owner.
    function collect(uint256 id, uint8 mask) external {
        require(mask >= 1 && mask <= 3, "BAD_MASK");
        Ladder storage l = _owned(id);
        (uint256 tokenOut, uint256 usdgOut) = _collect(id, l, mask);
        require(tokenOut + usdgOut > 0, "NOTHING_TO_COLLECT");
    }

    // ---- keeper / anyone ----

    /// @notice Trades every crossed leg once. Reverts NOT_CROSSED when no leg can trade, PAUSED while the
    /// strategy is paused, MARKET_NOT_OPEN while its market is closed.
    function poke(uint256 id) external {
        require(!paused, "PAUSED");
        Ladder storage l = _ladders[id];
        require(l.active, "LADDER_CLOSED");
        require(marketOpen[l.token], "MARKET_NOT_OPEN");
        LegState[] storage legs = _legs[id];
        uint8 decimals = Pool(l.pool).tokenDecimals();
        bool traded;
        bool running;
        for (uint256 i = 0; i < legs.length; i++) {
            LegState storage s = legs[i];
            if (s.finished) continue;
            if (s.holdsToken ? _trySell(id, l, s, i, decimals) : _tryBuy(id, l, s, i, decimals)) traded = true;
            if (!s.finished) running = true;
        }
        require(traded, "NOT_CROSSED");
        if (!running) {
            l.active = false;
            _openIds.remove(id);
        }
    }

    // ---- views ----

    /// @notice The listed markets' tokens.
    function markets() external view returns (address[] memory) {
        return _markets;
    }

    function ladders(uint256 id) external view returns (Ladder memory) {
        return _ladders[id];
    }

    function legsOf(uint256 id) external view returns (LegState[] memory) {
        return _legs[id];
    }

    /// @notice Ids of the ladders with legs still trading (the keeper's view).
    function openLadderIds() external view returns (uint256[] memory) {
        return _openIds.ids;
    }

    /// @notice What `collect(id, 3)` would pay now: (token, USDG).
    function collectable(uint256 id) external view returns (uint256 tokenOut, uint256 usdgOut) {
        Ladder storage l = _ladders[id];
        LegState[] storage legs = _legs[id];
        for (uint256 i = 0; i < legs.length; i++) {
            (uint256 t, uint256 u) = _collectable(l, legs[i]);
            tokenOut += t;
            usdgOut += u;
        }
    }

    // ---- internals ----

    function _checkOpen(address token, Leg[] calldata legs, bool sellFirst) private view returns (uint256 total) {
        require(!paused, "PAUSED");
        require(isListed[token], "NOT_LISTED");
        require(marketOpen[token], "MARKET_NOT_OPEN");
        require(legs.length > 0, "NO_LEGS");
        require(legs.length <= maxLegs, "TOO_MANY_LEGS");
        Pool pool = Pool(registry.poolOf(token));
        uint256 spot = pool.priceX18();
        require(spot > 0, "NO_REFERENCE");
        // One check at a time over all legs, in the documented order.
        for (uint256 i = 0; i < legs.length; i++) {
            bool ok = sellFirst ? legs[i].sellPriceX18 > spot : (legs[i].buyPriceX18 > 0 && legs[i].buyPriceX18 < spot);
            if (!ok) revert WRONG_SIDE(i, spot);
        }
        uint8 decimals = pool.tokenDecimals();
        for (uint256 i = 0; i < legs.length; i++) {
            uint256 minimum = minLegAmount(i, sellFirst, legs[i].sellPriceX18, decimals);
            if (legs[i].amount < minimum) {
                if (i == 0) revert FIRST_TOO_SMALL(i, minimum);
                revert FOLLOW_UP_TOO_SMALL(i, minimum);
            }
            total += legs[i].amount;
        }
        for (uint256 i = 0; i < legs.length; i++) {
            // sell/buy - 1 > 2 * fee  <=>  sell * 10_000 > buy * (10_000 + 2 * fee)
            uint256 bound = legs[i].buyPriceX18 * (10_000 + 2 * uint256(feeBps));
            if (legs[i].sellPriceX18 * 10_000 <= bound) revert NO_TRIP_HEADROOM(i, bound / 10_000 + 1);
        }
    }

    /// @notice Leg `leg`'s minimum amount in its unit: USDG for buy-first; for sell-first the token amount
    /// worth the USDG minimum at the leg's sell line, rounded up.
    function minLegAmount(uint256 leg, bool sellFirst, uint256 sellPriceX18, uint8 decimals) public view returns (uint256) {
        uint256 minUsdg = leg == 0 ? minFirstLegUsdg : minFollowUpUsdg;
        if (!sellFirst) return minUsdg;
        uint256 scaled = minUsdg * 1e12 * (10 ** decimals);
        return (scaled + sellPriceX18 - 1) / sellPriceX18;
    }

    function _trySell(uint256 id, Ladder storage l, LegState storage s, uint256 i, uint8 decimals) private returns (bool) {
        // On its start side a leg sells at most its stake; mid-trip it sells all it bought.
        uint256 amountIn = l.sellFirst && s.tokens > s.amount ? s.amount : s.tokens;
        if (amountIn == 0) return false;
        uint256 minOut = PriceMath.toUsdg(amountIn, decimals, s.sellPriceX18);
        uint256 quote = Pool(l.pool).quote(l.token, amountIn);
        if (quote == 0 || quote < minOut) return false;
        IERC20(l.token).forceApprove(l.pool, amountIn);
        uint256 gross = Pool(l.pool).swap(l.token, amountIn, minOut, address(this));
        uint256 fee = gross * feeBps / 10_000;
        s.tokens -= amountIn;
        s.usdg += gross - fee;
        s.holdsToken = false;
        _traded(id, l, s, i, false, amountIn, gross - fee, fee);
        // A sell finishes a one-way leg; a buy-first leg is then back on its start side.
        if (l.oneWay || (!l.sellFirst && (l.repeatMask & USDG_SIDE) == 0)) _finish(id, l, s, i);
        return true;
    }

    function _tryBuy(uint256 id, Ladder storage l, LegState storage s, uint256 i, uint8 decimals) private returns (bool) {
        if (s.buyPriceX18 == 0) return false;
        uint256 spend = !l.sellFirst && s.usdg > s.amount ? s.amount : s.usdg;
        uint256 fee = spend * feeBps / 10_000;
        uint256 swapIn = spend - fee;
        if (swapIn == 0) return false;
        uint256 minOut = PriceMath.toToken(swapIn, decimals, s.buyPriceX18);
        uint256 quote = Pool(l.pool).quote(usdg, swapIn);
        if (quote == 0 || quote < minOut) return false;
        IERC20(usdg).forceApprove(l.pool, swapIn);
        uint256 out = Pool(l.pool).swap(usdg, swapIn, minOut, address(this));
        s.usdg -= spend;
        s.tokens += out;
        s.holdsToken = true;
        _traded(id, l, s, i, true, spend, out, fee);
        // A sell-first leg is back on its start side after buying back.
        if (l.sellFirst && (l.repeatMask & TOKEN_SIDE) == 0) _finish(id, l, s, i);
        return true;
    }

    function _traded(uint256 id, Ladder storage l, LegState storage s, uint256 i, bool buy, uint256 amountIn, uint256 amountOut, uint256 fee) private {
        feesUsdg += fee;
        l.fees += fee;
        s.trades++;
        emit LadderTraded(id, l.owner, i, buy, amountIn, amountOut, fee);
    }

    function _finish(uint256 id, Ladder storage l, LegState storage s, uint256 i) private {
        s.finished = true;
        emit LadderLegFinished(id, l.owner, i);
    }

    /// @dev What a leg can give back now. A finished leg gives all it holds. A running leg on its start
    /// side keeps up to its stake of the start asset; mid-trip it keeps all of the other asset. The rest
    /// of each asset is collectable.
    function _collectable(Ladder storage l, LegState storage s) private view returns (uint256 tokenOut, uint256 usdgOut) {
        if (s.finished) return (s.tokens, s.usdg);
        bool onStart = s.holdsToken == l.sellFirst;
        if (l.sellFirst) {
            tokenOut = onStart ? (s.tokens > s.amount ? s.tokens - s.amount : 0) : s.tokens;
            usdgOut = onStart ? s.usdg : 0;
        } else {
            usdgOut = onStart ? (s.usdg > s.amount ? s.usdg - s.amount : 0) : s.usdg;
            tokenOut = onStart ? s.tokens : 0;
        }
    }

    function _collect(uint256 id, Ladder storage l, uint8 mask) private returns (uint256 tokenOut, uint256 usdgOut) {
        LegState[] storage legs = _legs[id];
        for (uint256 i = 0; i < legs.length; i++) {
            (uint256 t, uint256 u) = _collectable(l, legs[i]);
            if ((mask & TOKEN_SIDE) != 0 && t > 0) {
                legs[i].tokens -= t;
                tokenOut += t;
            }
            if ((mask & USDG_SIDE) != 0 && u > 0) {
                legs[i].usdg -= u;
                usdgOut += u;
            }
        }
        if (tokenOut > 0) IERC20(l.token).safeTransfer(msg.sender, tokenOut);
        if (usdgOut > 0) IERC20(usdg).safeTransfer(msg.sender, usdgOut);
        if (tokenOut + usdgOut > 0) emit LadderCollected(id, msg.sender, tokenOut, usdgOut);
    }

    function _owned(uint256 id) private view returns (Ladder storage l) {
        l = _ladders[id];
        require(l.owner == msg.sender, "NOT_OWNER");
    }
}
