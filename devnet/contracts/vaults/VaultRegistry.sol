// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice The admin's list of vaults: family (0 merged, 1 up, 2 stock-token) and whether agents may
/// use each. Listing again updates a vault's entry.
contract VaultRegistry is Ownable {
    struct Listing {
        uint8 family;
        bool agent;
        bool listed;
    }

    mapping(address => Listing) public listings;
    address[] private _vaults;

    event VaultListed(address indexed vault, uint8 family, bool agent);

    constructor(address owner_) Ownable(owner_) {}

    function list(address vault, uint8 family, bool agent) external onlyOwner {
        require(family <= 2, "BAD_FAMILY");
        require(vault != address(0), "ZERO_VAULT");
        if (!listings[vault].listed) _vaults.push(vault);
        listings[vault] = Listing(family, agent, true);
        emit VaultListed(vault, family, agent);
    }

    function vaults() external view returns (address[] memory) {
        return _vaults;
    }
}
