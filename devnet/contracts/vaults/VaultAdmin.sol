// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice What every vault family shares: the admin-set status with its reason, the deposit limits,
/// the performance fee and the keeper role (the MarketMaker contract).
abstract contract VaultAdmin is Ownable {
    enum Status {
        Open,
        Full,
        Closed,
        Paused
    }

    // keeper, status, feeBps and lastHarvestAt share one storage slot, so a harvest writes one slot.
    address public keeper;
    Status public status;
    /// @notice Performance fee on harvested income, in basis points, paid to the admin.
    uint16 public feeBps;
    /// @notice Timestamp of the last harvest (the keeper sizes the next one from it).
    uint64 public lastHarvestAt;

    string public statusReason;
    /// @notice Max total assets (queued deposits included). Pair vaults: USDG base units; stock vaults: asset units.
    uint256 public depositCap;
    /// @notice Smallest accepted deposit, in the same unit as `depositCap`.
    uint256 public minDeposit;

    event StatusChanged(uint8 status, string reason);
    event LimitsChanged(uint256 depositCap, uint256 minDeposit);
    event FeeChanged(uint16 feeBps);
    event KeeperChanged(address keeper);
    event Harvested(uint256 gross, uint256 fee, uint256 totalAssets, uint256 totalSupply);

    modifier onlyKeeper() {
        require(msg.sender == keeper, "NOT_KEEPER");
        _;
    }

    constructor(address keeper_, address owner_) Ownable(owner_) {
        keeper = keeper_;
        depositCap = type(uint256).max;
        lastHarvestAt = uint64(block.timestamp);
    }

    function setStatus(uint8 status_, string calldata reason) external onlyOwner {
        require(status_ <= uint8(Status.Paused), "BAD_STATUS");
        status = Status(status_);
        statusReason = reason;
        emit StatusChanged(status_, reason);
    }

    function setLimits(uint256 depositCap_, uint256 minDeposit_) external onlyOwner {
        depositCap = depositCap_;
        minDeposit = minDeposit_;
        emit LimitsChanged(depositCap_, minDeposit_);
    }

    function setFee(uint16 feeBps_) external onlyOwner {
        require(feeBps_ <= 5_000, "FEE_TOO_HIGH");
        feeBps = feeBps_;
        emit FeeChanged(feeBps_);
    }

    function setKeeper(address keeper_) external onlyOwner {
        keeper = keeper_;
        emit KeeperChanged(keeper_);
    }

    /// @dev Reverts with the reason a deposit of `assets` is refused when the vault holds `total` already.
    function _checkLimits(uint256 assets, uint256 total) internal view {
        require(status != Status.Closed, "DEPOSITS_CLOSED");
        require(status != Status.Paused, "DEPOSITS_PAUSED");
        require(status != Status.Full && total < depositCap, "VAULT_FULL");
        require(assets > 0 && assets >= minDeposit, "DEPOSIT_TOO_SMALL");
        require(total + assets <= depositCap, "CAPACITY");
    }

    /// @dev The fee part of `gross` income, and the harvest clock.
    function _harvestFee(uint256 gross) internal returns (uint256 fee) {
        fee = gross * feeBps / 10_000;
        lastHarvestAt = uint64(block.timestamp);
    }
}
