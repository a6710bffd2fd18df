// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IAuthCaptureEscrow} from "../interfaces/IAuthCaptureEscrow.sol";
import {IERC3009} from "../interfaces/IERC3009.sol";
import {ITokenCollector} from "../interfaces/ITokenCollector.sol";

/// @title ERC3009PaymentCollector (the project's stand-in)
/// @notice A stand-in for Commerce Payments' canonical EIP-3009 payment collector, for the local
/// chain only: it pays into its escrow with the payer's `ReceiveWithAuthorization`, signed to this
/// collector for `maxAmount`, valid before `preApprovalExpiry`, with the payment's payer-agnostic
/// hash as its nonce. The token moves `maxAmount` here, the collector returns what exceeds the
/// authorized amount to the payer, and sends the rest to the operator's token store.
/// @dev It must sit at the canonical collector's address: USDC's `receiveWithAuthorization` requires
/// its caller to be the `to` the payer signed. The nonce is the escrow's `getHash` of the terms with
/// the payer set to zero (what the payer's client computes before it knows which account signs), so
/// an authorization serves that one payment, on that chain and escrow, once (the token refuses a used
/// nonce). The escrow's address is storage slot 0, written by the constructor or, where the code is
/// placed with `hardhat_setCode`, by `hardhat_setStorageAt`; while it is zero nobody may call.
/// Token assumptions: USDC v2.2 (`receiveWithAuthorization` with the signature as bytes: an EOA's
/// 65 bytes or an ERC-1271 account's). ERC-6492 wrapped signatures are not unwrapped.
contract ERC3009PaymentCollector is ITokenCollector {
    using SafeERC20 for IERC20;

    /// @inheritdoc ITokenCollector
    /// @dev Storage slot 0; see the contract's notes.
    address public authCaptureEscrow;

    /// @param escrow The escrow this collector serves.
    constructor(address escrow) {
        authCaptureEscrow = escrow;
    }

    /// @inheritdoc ITokenCollector
    function collectorType() external pure returns (CollectorType) {
        return CollectorType.Payment;
    }

    /// @inheritdoc ITokenCollector
    function collectTokens(
        IAuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) external {
        address escrow = authCaptureEscrow;
        if (msg.sender != escrow) revert OnlyAuthCaptureEscrow();
        IAuthCaptureEscrow.PaymentInfo memory anyPayer = paymentInfo;
        anyPayer.payer = address(0);
        bytes32 nonce = IAuthCaptureEscrow(escrow).getHash(anyPayer);
        IERC3009(paymentInfo.token).receiveWithAuthorization(
            paymentInfo.payer, address(this), paymentInfo.maxAmount, 0, paymentInfo.preApprovalExpiry, nonce, collectorData
        );
        IERC20 token = IERC20(paymentInfo.token);
        // The escrow refuses amount > maxAmount before calling, so this never underflows.
        uint256 excess = paymentInfo.maxAmount - amount;
        if (excess > 0) token.safeTransfer(paymentInfo.payer, excess);
        token.safeTransfer(tokenStore, amount);
    }
}
