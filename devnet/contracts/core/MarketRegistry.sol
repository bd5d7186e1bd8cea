// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pool} from "./Pool.sol";

/// @notice Creates and lists the USDG-quoted pools, one per token.
contract MarketRegistry is Ownable {
    address public immutable usdg;
    mapping(address => address) public poolOf;
    address[] private _tokens;

    event PoolCreated(address indexed token, address indexed pool);

    constructor(address usdg_, address owner_) Ownable(owner_) {
        usdg = usdg_;
    }

    function createPool(address token) external onlyOwner returns (address pool) {
        require(poolOf[token] == address(0), "POOL_EXISTS");
        pool = address(new Pool(token, usdg));
        poolOf[token] = pool;
        _tokens.push(token);
        emit PoolCreated(token, pool);
    }

    function tokens() external view returns (address[] memory) {
        return _tokens;
    }

    /// @notice USDG per whole token (18-decimal), 1e18 for USDG itself, 0 without a market.
    function priceX18(address token) external view returns (uint256) {
        if (token == usdg) return 1e18;
        address pool = poolOf[token];
        return pool == address(0) ? 0 : Pool(pool).priceX18();
    }
}
