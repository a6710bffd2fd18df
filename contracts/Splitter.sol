// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISplitter} from "./interfaces/ISplitter.sol";
import {IERC3009} from "./interfaces/IERC3009.sol";

/// @title Splitter
/// @notice Moves a one-time payment from the buyer to the merchant and the fee collector in one
/// transaction, and settles each payment (token, recipient, amount, reference) at most once.
/// @dev No owner, no upgrade path, no function that moves anyone's tokens but the payer's own
/// signed or approved payment. On the allowance and permit paths tokens go straight from the payer
/// to the two payees; on the EIP-3009 path they pass through this contract within the call. The
/// contract never keeps a balance.
/// Token assumptions: a standard ERC-20 that moves exactly the amount asked (no fee-on-transfer, no
/// rebasing). SafeERC20 covers tokens that return false or nothing.
contract Splitter is ISplitter {
    using SafeERC20 for IERC20;

    uint16 private constant BPS_DENOMINATOR = 10_000;

    /// @inheritdoc ISplitter
    uint16 public immutable FEE_BPS;
    /// @inheritdoc ISplitter
    address public immutable FEE_COLLECTOR;

    /// @inheritdoc ISplitter
    mapping(bytes32 paymentKey => uint256 blockNumber) public settledBlock;

    /// @param feeCollector The account that receives every fee.
    /// @param feeBps The fee in basis points; at most 10_000.
    constructor(address feeCollector, uint16 feeBps) {
        if (feeCollector == address(0) || feeBps > BPS_DENOMINATOR) {
            revert InvalidConfiguration(feeCollector, feeBps);
        }
        FEE_COLLECTOR = feeCollector;
        FEE_BPS = feeBps;
    }

    /// @inheritdoc ISplitter
    function paymentKey(address token, address recipient, uint256 amount, bytes32 paymentReference)
        public
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(token, recipient, amount, paymentReference));
    }

    /// @inheritdoc ISplitter
    function authorizationNonce(address recipient, bytes32 paymentReference) public pure returns (bytes32) {
        return keccak256(abi.encode(recipient, paymentReference));
    }

    /// @inheritdoc ISplitter
    function pay(address token, address recipient, uint256 amount, bytes32 paymentReference) external {
        (uint256 fee, uint256 net) = _settle(token, msg.sender, recipient, amount, paymentReference);
        IERC20(token).safeTransferFrom(msg.sender, recipient, net);
        if (fee != 0) IERC20(token).safeTransferFrom(msg.sender, FEE_COLLECTOR, fee);
    }

    /// @inheritdoc ISplitter
    function payWithPermit(
        address token,
        address recipient,
        uint256 amount,
        bytes32 paymentReference,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        // A permit seen in the mempool can be submitted by someone else first; that only sets the
        // same allowance, so a failed permit is fine when the allowance is there.
        try IERC20Permit(token).permit(msg.sender, address(this), amount, deadline, v, r, s) {}
        catch {
            uint256 allowance = IERC20(token).allowance(msg.sender, address(this));
            if (allowance < amount) revert PermitAllowanceTooLow(allowance, amount);
        }
        (uint256 fee, uint256 net) = _settle(token, msg.sender, recipient, amount, paymentReference);
        IERC20(token).safeTransferFrom(msg.sender, recipient, net);
        if (fee != 0) IERC20(token).safeTransferFrom(msg.sender, FEE_COLLECTOR, fee);
    }

    /// @inheritdoc ISplitter
    function payWithAuthorization(
        address token,
        address payer,
        address recipient,
        uint256 amount,
        bytes32 paymentReference,
        uint256 validAfter,
        uint256 validBefore,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        (uint256 fee, uint256 net) = _settle(token, payer, recipient, amount, paymentReference);
        IERC3009(token).receiveWithAuthorization(
            payer,
            address(this),
            amount,
            validAfter,
            validBefore,
            authorizationNonce(recipient, paymentReference),
            v,
            r,
            s
        );
        IERC20(token).safeTransfer(recipient, net);
        if (fee != 0) IERC20(token).safeTransfer(FEE_COLLECTOR, fee);
    }

    /// @inheritdoc ISplitter
    function payWithAuthorizationSignature(
        address token,
        address payer,
        address recipient,
        uint256 amount,
        bytes32 paymentReference,
        uint256 validAfter,
        uint256 validBefore,
        bytes calldata signature
    ) external {
        (uint256 fee, uint256 net) = _settle(token, payer, recipient, amount, paymentReference);
        IERC3009(token).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, authorizationNonce(recipient, paymentReference), signature
        );
        IERC20(token).safeTransfer(recipient, net);
        if (fee != 0) IERC20(token).safeTransfer(FEE_COLLECTOR, fee);
    }

    /// @dev Checks and records the payment before any token moves (checks-effects-interactions),
    /// so a reentrant token cannot settle the same payment twice. The guard is keyed by the whole
    /// payment, not the reference alone: a look-alike (another token, recipient or amount) gets its
    /// own key and cannot block the real one.
    function _settle(address token, address payer, address recipient, uint256 amount, bytes32 paymentReference)
        private
        returns (uint256 fee, uint256 net)
    {
        if (recipient == address(0) || amount == 0) revert InvalidPayment(recipient, amount);
        bytes32 key = paymentKey(token, recipient, amount, paymentReference);
        uint256 previous = settledBlock[key];
        if (previous != 0) revert AlreadySettled(key, previous);
        settledBlock[key] = block.number;
        fee = amount * FEE_BPS / BPS_DENOMINATOR;
        net = amount - fee;
        emit Paid(key, paymentReference, recipient, payer, token, amount, fee);
    }
}
