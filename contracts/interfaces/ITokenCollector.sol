// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAuthCaptureEscrow} from "./IAuthCaptureEscrow.sol";

/// @title ITokenCollector
/// @notice A Commerce Payments token collector, as the escrow calls it: it moves exactly `amount`
/// token units into the operator's token store, by whatever authorization the payer (a payment
/// collector) or the operator (a refund collector) gave it. Only its escrow may call it.
interface ITokenCollector {
    /// @notice What a collector may be used for: paying into escrow, or funding a refund.
    enum CollectorType {
        Payment,
        Refund
    }

    /// @notice The caller is not the collector's escrow.
    error OnlyAuthCaptureEscrow();

    /// @notice The escrow this collector serves (and whose address its nonces are bound to).
    function authCaptureEscrow() external view returns (address);

    /// @notice Whether this collector pays into escrow or funds refunds.
    function collectorType() external view returns (CollectorType);

    /// @notice Moves `amount` token units of `paymentInfo.token` into `tokenStore`. Escrow only.
    /// @param collectorData The collector's own authorization data (the ERC-3009 collector: the
    /// payer's signature).
    function collectTokens(
        IAuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) external;
}
