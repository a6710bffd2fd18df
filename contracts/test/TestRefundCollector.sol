// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IAuthCaptureEscrow} from "../interfaces/IAuthCaptureEscrow.sol";
import {ITokenCollector} from "../interfaces/ITokenCollector.sol";

/// @title TestRefundCollector
/// @notice Test only: a refund collector that funds a refund from the operator's allowance, so the
/// tests can reach the escrow's refund rules. The service funds refunds from the merchant's wallet
/// and uses no refund collector.
contract TestRefundCollector is ITokenCollector {
    using SafeERC20 for IERC20;

    /// @inheritdoc ITokenCollector
    address public immutable authCaptureEscrow;

    constructor(address escrow) {
        authCaptureEscrow = escrow;
    }

    /// @inheritdoc ITokenCollector
    function collectorType() external pure returns (CollectorType) {
        return CollectorType.Refund;
    }

    /// @inheritdoc ITokenCollector
    function collectTokens(IAuthCaptureEscrow.PaymentInfo calldata paymentInfo, address tokenStore, uint256 amount, bytes calldata)
        external
    {
        if (msg.sender != authCaptureEscrow) revert OnlyAuthCaptureEscrow();
        IERC20(paymentInfo.token).safeTransferFrom(paymentInfo.operator, tokenStore, amount);
    }
}
