// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Prices are USDG per whole token in 18-decimal fixed point ("priceX18"); USDG has 6 decimals.
library PriceMath {
    /// @dev USDG base units worth `tokenAmount` base units of a token with `decimals` at `priceX18`.
    function toUsdg(uint256 tokenAmount, uint8 decimals, uint256 priceX18) internal pure returns (uint256) {
        return tokenAmount * priceX18 / (10 ** decimals) / 1e12;
    }

    /// @dev Token base units bought by `usdgAmount` at `priceX18`.
    function toToken(uint256 usdgAmount, uint8 decimals, uint256 priceX18) internal pure returns (uint256) {
        return usdgAmount * 1e12 * (10 ** decimals) / priceX18;
    }

    /// @dev priceX18 of a pool holding `reserveToken` (with `decimals`) against `reserveUsdg`.
    function spot(uint256 reserveToken, uint8 decimals, uint256 reserveUsdg) internal pure returns (uint256) {
        if (reserveToken == 0) return 0;
        return reserveUsdg * 1e12 * (10 ** decimals) / reserveToken;
    }
}
