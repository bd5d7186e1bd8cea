// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pool} from "./Pool.sol";

/// @notice The devnet's market simulator: holds inventory and trades pools towards target prices,
/// many pools in one transaction, so that history can be seeded quickly.
contract MarketMaker is Ownable {
    constructor(address owner_) Ownable(owner_) {}

    /// @notice Trades each pool until its price is close to `targetsX18[i]` (USDG per whole token, 18 decimals).
    function moveTo(Pool[] calldata pools, uint256[] calldata targetsX18) external onlyOwner {
        require(pools.length == targetsX18.length, "LENGTH");
        for (uint256 i = 0; i < pools.length; i++) _moveTo(pools[i], targetsX18[i]);
    }

    function _moveTo(Pool pool, uint256 target) private {
        (uint256 rT, uint256 rU) = pool.getReserves();
        if (rT == 0 || target == 0) return;
        // Constant product: at price p, reserveToken = sqrt(k * 1e12 * 10^d / p).
        uint256 scale = 1e12 * 10 ** pool.tokenDecimals();
        uint256 wantT = Math.sqrt(Math.mulDiv(rT * rU, scale, target));
        uint256 fee = pool.feeBps();
        if (wantT > rT) {
            uint256 amountIn = (wantT - rT) * 10_000 / (10_000 - fee);
            if (amountIn == 0) return;
            _swap(pool, pool.token(), amountIn);
        } else if (wantT < rT) {
            uint256 wantU = rT * rU / wantT;
            uint256 amountIn = (wantU - rU) * 10_000 / (10_000 - fee);
            if (amountIn == 0) return;
            _swap(pool, pool.usdg(), amountIn);
        }
    }

    function _swap(Pool pool, address tokenIn, uint256 amountIn) private {
        // A move too small to buy one base unit is skipped rather than reverting the whole batch.
        if (pool.quote(tokenIn, amountIn) == 0) return;
        // One unlimited approval per pool: the market maker is the devnet's own inventory, and a fresh
        // approval on every move would cost most of the move's gas.
        if (IERC20(tokenIn).allowance(address(this), address(pool)) < amountIn) {
            IERC20(tokenIn).approve(address(pool), type(uint256).max);
        }
        pool.swap(tokenIn, amountIn, 0, address(this));
    }

    /// @notice Sells `amountsIn[i]` of `tokensIn[i]` (the pool's token or USDG; none when 0) to `pools[i]`: the market
    /// simulator's fast path (devnet/market.ts), which sizes each trade off chain from the pools' reserves
    /// with `moveTo`'s arithmetic, so that a step costs the swaps alone. With `approve`, first gives every
    /// pool an unlimited allowance of both its tokens (once, on the simulator's first step).
    function swapMany(Pool[] calldata pools, address[] calldata tokensIn, uint256[] calldata amountsIn, bool approve)
        external
        onlyOwner
    {
        require(pools.length == tokensIn.length && pools.length == amountsIn.length, "LENGTH");
        if (approve) {
            for (uint256 i = 0; i < pools.length; i++) {
                IERC20(pools[i].token()).approve(address(pools[i]), type(uint256).max);
                IERC20(pools[i].usdg()).approve(address(pools[i]), type(uint256).max);
            }
        }
        for (uint256 i = 0; i < pools.length; i++) {
            if (amountsIn[i] != 0) pools[i].swap(tokensIn[i], amountsIn[i], 0, address(this));
        }
    }

    event CallFailed(uint256 index, address indexed target, bytes reason);

    /// @notice Runs several keeper calls in one transaction (one block of seeded history). A call that
    /// fails (an order filled meanwhile, say) is skipped and reported, so it cannot block the others.
    function executeBatch(address[] calldata targets, bytes[] calldata datas) external onlyOwner returns (uint256 failed) {
        require(targets.length == datas.length, "LENGTH");
        for (uint256 i = 0; i < targets.length; i++) {
            (bool ok, bytes memory ret) = targets[i].call(datas[i]);
            if (!ok) {
                failed++;
                emit CallFailed(i, targets[i], ret);
            }
        }
    }

    /// @notice Calls `target` with `data` from this contract (the keeper's fills, settlements and harvests).
    function execute(address target, bytes calldata data) external onlyOwner returns (bytes memory) {
        (bool ok, bytes memory ret) = target.call(data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        return ret;
    }
}
