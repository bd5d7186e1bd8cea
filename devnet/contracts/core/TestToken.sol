// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Devnet ERC20 with its own decimals (USDG, listed, stock and unlisted tokens).
/// The owner mints; it may also freeze holders or pause the whole token, so that basket routes can
/// meet a frozen or a paused token (every transfer, mint and burn reverts while paused).
contract TestToken is ERC20, Ownable {
    uint8 private immutable _decimals;
    mapping(address => bool) public frozen;
    bool public paused;

    event Frozen(address indexed holder, bool frozen);
    event Paused(bool paused);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_)
        ERC20(name_, symbol_)
        Ownable(owner_)
    {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    function setFrozen(address holder, bool value) external onlyOwner {
        frozen[holder] = value;
        emit Frozen(holder, value);
    }

    function setPaused(bool value) external onlyOwner {
        paused = value;
        emit Paused(value);
    }

    function _update(address from, address to, uint256 value) internal override {
        require(!paused, "TOKEN_PAUSED");
        require(!frozen[from] && !frozen[to], "TOKEN_FROZEN");
        super._update(from, to, value);
    }
}
