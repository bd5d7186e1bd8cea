// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {PriceMath} from "../core/PriceMath.sol";
import {Pool} from "../core/Pool.sol";
import {LadderStrategy} from "./LadderStrategy.sol";

/// @notice What an agent may do with an account's funds on the ladder strategy.
/// floorX18: no buy line below it. ceilingX18: every sell line at or below it (required: 0 refuses every
/// open). budgetUsdg: USDG the agent may commit in total over the account's life (a sell-first leg counts
/// its token amount at its sell line). feeCapBps: the ladder's feeBps must not exceed it. minSpreadBps:
/// every leg's sell/buy - 1 must be at least this.
struct Limits {
    uint256 floorX18;
    uint256 ceilingX18;
    uint256 budgetUsdg;
    uint16 feeCapBps;
    uint16 minSpreadBps;
}

interface IAgentAccountFactory {
    function enabled() external view returns (bool);
}

/// @notice An owner's account that an agent key trades from, within the owner's limits. It holds the
/// owner's USDG and tokens, and is the owner of the ladders it opens (their payouts come back here).
contract AgentAccount {
    using SafeERC20 for IERC20;

    address public immutable owner;
    address public immutable agent;
    IAgentAccountFactory public immutable factory;
    LadderStrategy public immutable ladderStrategy;
    address public immutable usdg;

    Limits private _limits;
    /// @notice USDG committed by ladder opens so far (counted against the budget).
    uint256 public committedUsdg;

    event AgentCall(address indexed account, address indexed agent, bytes4 selector, uint256 committedUsdg);
    event LimitsSet(address indexed account, uint256 floorX18, uint256 ceilingX18, uint256 budgetUsdg, uint16 feeCapBps, uint16 minSpreadBps);
    event Withdrawn(address indexed account, address indexed token, uint256 amount);

    constructor(address owner_, address agent_, Limits memory limits_, LadderStrategy ladderStrategy_) {
        owner = owner_;
        agent = agent_;
        factory = IAgentAccountFactory(msg.sender);
        ladderStrategy = ladderStrategy_;
        usdg = ladderStrategy_.usdg();
        _setLimits(limits_);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "NOT_OWNER");
        _;
    }

    /// @notice The account's LADDER call: `data` is calldata for LadderStrategy.open, close, setRepeat or
    /// collect, made by the agent (or the owner, so that the owner can always stop a ladder). An open is
    /// checked against the limits, given an approval of exactly its total, and counted against the budget.
    function ladder(bytes calldata data) external returns (bytes memory ret) {
        require(factory.enabled(), "ACCOUNTS_DISABLED");
        require(msg.sender == agent || msg.sender == owner, "NOT_AGENT");
        require(data.length >= 4, "NOT_ALLOWED");
        bytes4 selector = bytes4(data[:4]);
        uint256 committed;
        if (selector == LadderStrategy.open.selector) {
            (address token, LadderStrategy.Leg[] memory legs, bool sellFirst,,) =
                abi.decode(data[4:], (address, LadderStrategy.Leg[], bool, bool, bool));
            uint256 total;
            (total, committed) = _checkOpen(token, legs, sellFirst);
            committedUsdg += committed;
            IERC20(sellFirst ? token : usdg).forceApprove(address(ladderStrategy), total);
        } else {
            require(
                selector == LadderStrategy.close.selector || selector == LadderStrategy.setRepeat.selector
                    || selector == LadderStrategy.collect.selector,
                "NOT_ALLOWED"
            );
        }
        bool ok;
        (ok, ret) = address(ladderStrategy).call(data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        emit AgentCall(address(this), msg.sender, selector, committed);
    }

    /// @notice Pays `amount` of `token` held by the account to the owner.
    function withdraw(address token, uint256 amount) external onlyOwner {
        IERC20(token).safeTransfer(owner, amount);
        emit Withdrawn(address(this), token, amount);
    }

    function setLimits(Limits calldata limits_) external onlyOwner {
        _setLimits(limits_);
    }

    function limits() external view returns (Limits memory) {
        return _limits;
    }

    function _setLimits(Limits memory l) private {
        _limits = l;
        emit LimitsSet(address(this), l.floorX18, l.ceilingX18, l.budgetUsdg, l.feeCapBps, l.minSpreadBps);
    }

    /// @dev Checks an open against the limits, one limit at a time over all legs, in the order
    /// FLOOR, CEILING, BUDGET, FEE_CAP, SPREAD. Returns the total pulled and the USDG it commits.
    function _checkOpen(address token, LadderStrategy.Leg[] memory legs, bool sellFirst)
        private
        view
        returns (uint256 total, uint256 committed)
    {
        Limits memory l = _limits;
        for (uint256 i = 0; i < legs.length; i++) {
            require(legs[i].buyPriceX18 >= l.floorX18, "FLOOR");
        }
        require(l.ceilingX18 > 0, "CEILING");
        for (uint256 i = 0; i < legs.length; i++) {
            require(legs[i].sellPriceX18 <= l.ceilingX18, "CEILING");
        }
        uint8 decimals = sellFirst ? Pool(ladderStrategy.registry().poolOf(token)).tokenDecimals() : 6;
        for (uint256 i = 0; i < legs.length; i++) {
            total += legs[i].amount;
            committed += sellFirst ? PriceMath.toUsdg(legs[i].amount, decimals, legs[i].sellPriceX18) : legs[i].amount;
        }
        require(committedUsdg + committed <= l.budgetUsdg, "BUDGET");
        require(ladderStrategy.feeBps() <= l.feeCapBps, "FEE_CAP");
        for (uint256 i = 0; i < legs.length; i++) {
            require(legs[i].sellPriceX18 * 10_000 >= legs[i].buyPriceX18 * (10_000 + uint256(l.minSpreadBps)), "SPREAD");
        }
    }
}
