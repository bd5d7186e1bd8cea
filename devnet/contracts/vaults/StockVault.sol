// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {VaultAdmin} from "./VaultAdmin.sol";

/// @notice Stock-token vault: a standard ERC4626 over one stock token (18-decimal shares). USDG
/// deposits and withdrawals go through the StockVaultRouter; `redeem` here is in kind. Limits are in
/// the stock token's base units.
contract StockVault is ERC4626, VaultAdmin {
    using SafeERC20 for IERC20;

    constructor(IERC20 stock, string memory name_, string memory symbol_, address keeper_, address owner_)
        ERC20(name_, symbol_)
        ERC4626(stock)
        VaultAdmin(keeper_, owner_)
    {}

    /// @notice Reverts with DEPOSITS_CLOSED, DEPOSITS_PAUSED, VAULT_FULL, DEPOSIT_TOO_SMALL or CAPACITY
    /// when a deposit of `assets` stock tokens would be refused now.
    function checkDeposit(uint256 assets) public view {
        _checkLimits(assets, totalAssets());
    }

    /// @dev Checked before ERC4626's own max check, so refusals carry the short reasons.
    function deposit(uint256 assets, address receiver) public override returns (uint256) {
        checkDeposit(assets);
        return super.deposit(assets, receiver);
    }

    function mint(uint256 shares, address receiver) public override returns (uint256) {
        checkDeposit(previewMint(shares));
        return super.mint(shares, receiver);
    }

    function maxDeposit(address) public view override returns (uint256) {
        uint256 total = totalAssets();
        if (status != Status.Open || total >= depositCap) return 0;
        return depositCap - total;
    }

    function maxMint(address receiver) public view override returns (uint256) {
        uint256 room = maxDeposit(receiver);
        return room == type(uint256).max ? room : convertToShares(room);
    }

    /// @notice Keeper: pulls `assetsIn` stock tokens of income from the keeper; `feeBps` of it goes to
    /// the admin, the rest raises the share price.
    function harvest(uint256 assetsIn) external onlyKeeper {
        IERC20 stock = IERC20(asset());
        stock.safeTransferFrom(msg.sender, address(this), assetsIn);
        uint256 fee = _harvestFee(assetsIn);
        if (fee > 0) stock.safeTransfer(owner(), fee);
        emit Harvested(assetsIn, fee, totalAssets(), totalSupply());
    }
}
