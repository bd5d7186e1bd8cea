// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";

/// @notice Every basket the service knows: who made it, whether it is listed (verified) and whether it is
/// sell-only (the service's hidden baskets and those taken off the site). Symbols are unique, ignoring case.
contract BasketRegistry is Ownable {
    struct Entry {
        bool registered;
        bool listed;
        bool sellOnly;
        address maker;
    }

    /// @notice The BasketMaker contract, which registers the baskets users make (always unlisted).
    address public basketMaker;
    /// @notice The keeper role (the MarketMaker contract), whose small swaps give the baskets their fee history.
    address public keeper;
    mapping(address => Entry) private _entries;
    mapping(bytes32 => bool) private _symbols;
    address[] private _baskets;

    event BasketRegistered(address indexed pool, address indexed maker, string symbol, bool listed);
    event BasketListed(address indexed pool, bool listed);
    event BasketSellOnly(address indexed pool, bool sellOnly);
    event BasketMakerSet(address basketMaker);
    event KeeperSet(address keeper);

    constructor(address admin_) Ownable(admin_) {}

    function setBasketMaker(address basketMaker_) external onlyOwner {
        basketMaker = basketMaker_;
        emit BasketMakerSet(basketMaker_);
    }

    function setKeeper(address keeper_) external onlyOwner {
        keeper = keeper_;
        emit KeeperSet(keeper_);
    }

    /// @notice Records `pool`, made by `maker`. The admin registers the service's own baskets; the
    /// BasketMaker registers user-made ones, which start unlisted until the admin lists them.
    function register(address pool, address maker, bool listed) external {
        require(msg.sender == owner() || msg.sender == basketMaker, "NOT_ALLOWED");
        require(msg.sender == owner() || !listed, "NOT_ALLOWED");
        require(!_entries[pool].registered, "ALREADY_REGISTERED");
        string memory symbol = IERC20Metadata(pool).symbol();
        bytes32 key = _symbolKey(symbol);
        require(!_symbols[key], "SYMBOL_TAKEN");
        _symbols[key] = true;
        _entries[pool] = Entry({registered: true, listed: listed, sellOnly: false, maker: maker});
        _baskets.push(pool);
        emit BasketRegistered(pool, maker, symbol, listed);
    }

    function setListed(address pool, bool listed) external onlyOwner {
        require(_entries[pool].registered, "UNKNOWN_BASKET");
        _entries[pool].listed = listed;
        emit BasketListed(pool, listed);
    }

    function setSellOnly(address pool, bool sellOnly) external onlyOwner {
        require(_entries[pool].registered, "UNKNOWN_BASKET");
        _entries[pool].sellOnly = sellOnly;
        emit BasketSellOnly(pool, sellOnly);
    }

    // ---- views ----

    function isRegistered(address pool) external view returns (bool) {
        return _entries[pool].registered;
    }

    function isListed(address pool) external view returns (bool) {
        return _entries[pool].listed;
    }

    function isSellOnly(address pool) external view returns (bool) {
        return _entries[pool].sellOnly;
    }

    function makerOf(address pool) external view returns (address) {
        return _entries[pool].maker;
    }

    function baskets() external view returns (address[] memory) {
        return _baskets;
    }

    /// @notice Whether a registered basket already uses `symbol` (ASCII case ignored).
    function symbolTaken(string calldata symbol) external view returns (bool) {
        return _symbols[_symbolKey(symbol)];
    }

    /// @dev keccak256 of the symbol with A-Z lowered, so "BLUE" and "blue" collide.
    function _symbolKey(string memory symbol) private pure returns (bytes32) {
        bytes memory b = bytes(symbol);
        bytes memory lower = new bytes(b.length);
        for (uint256 i = 0; i < b.length; i++) {
            bytes1 c = b[i];
            lower[i] = (c >= "A" && c <= "Z") ? bytes1(uint8(c) + 32) : c;
        }
        return keccak256(lower);
    }
}
