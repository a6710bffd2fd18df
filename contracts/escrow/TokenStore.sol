// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title TokenStore
/// @notice Where one operator's escrowed funds sit (the stand-in escrow's per-operator vault): a bug
/// that let one operator's calls move funds could reach no other operator's.
/// @dev Created by the escrow with CREATE2 (salt: the operator), so its constructor runs and its
/// immutable is the escrow that created it, wherever that escrow's code was placed.
contract TokenStore {
    using SafeERC20 for IERC20;

    /// @notice The escrow that created this store: its only caller.
    /// @dev Named as the canonical store's getter, so one ABI reads both.
    // solhint-disable-next-line immutable-vars-naming
    address public immutable authCaptureEscrow;

    /// @notice The caller is not the escrow that created this store.
    error OnlyAuthCaptureEscrow();

    constructor() {
        authCaptureEscrow = msg.sender;
    }

    /// @notice Sends `amount` token units of `token` to `recipient`. Escrow only.
    /// @return Always true (a failed transfer reverts).
    function sendTokens(address token, address recipient, uint256 amount) external returns (bool) {
        if (msg.sender != authCaptureEscrow) revert OnlyAuthCaptureEscrow();
        IERC20(token).safeTransfer(recipient, amount);
        return true;
    }
}
