// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IAuthCaptureEscrow} from "../interfaces/IAuthCaptureEscrow.sol";
import {ITokenCollector} from "../interfaces/ITokenCollector.sol";
import {TokenStore} from "./TokenStore.sol";

/// @title AuthCaptureEscrow (the project's stand-in)
/// @notice A stand-in for Commerce Payments' canonical `AuthCaptureEscrow` v1.1, written by this project
/// from the published interface and rules, for the local chain only: the service and the tests drive
/// it at the canonical address with the canonical ABI, hash and errors. On Base and Base Sepolia the
/// canonical escrow is used, never this contract.
/// @dev No constructor, no immutables, no storage written at deployment: its runtime code is placed
/// at the canonical address with `hardhat_setCode`, which carries code and nothing else. Each
/// operator's funds sit in its own `TokenStore`, created with CREATE2 on first use. Every state
/// change is written and its event emitted before any token moves; every entry point is non-reentrant
/// (transient storage, nothing to initialise).
contract AuthCaptureEscrow is IAuthCaptureEscrow, ReentrancyGuardTransient {
    /// @inheritdoc IAuthCaptureEscrow
    bytes32 public constant PAYMENT_INFO_TYPEHASH = keccak256(
        "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)"
    );

    uint16 private constant BPS_DENOMINATOR = 10_000;

    /// @notice One payment's ledger, in token units.
    struct PaymentState {
        /// @dev Set by the one authorize or charge a payment may have.
        bool hasCollectedPayment;
        /// @dev In escrow, capturable by the operator (until voided or reclaimed).
        uint120 capturableAmount;
        /// @dev Captured and not yet refunded.
        uint120 refundableAmount;
    }

    /// @inheritdoc IAuthCaptureEscrow
    mapping(bytes32 paymentInfoHash => PaymentState state) public paymentState;

    modifier onlySender(address expected) {
        if (msg.sender != expected) revert InvalidSender(msg.sender, expected);
        _;
    }

    modifier validAmount(uint256 amount) {
        if (amount == 0) revert ZeroAmount();
        if (amount > type(uint120).max) revert AmountOverflow(amount, type(uint120).max);
        _;
    }

    /// @inheritdoc IAuthCaptureEscrow
    function authorize(PaymentInfo calldata paymentInfo, uint256 amount, address tokenCollector, bytes calldata collectorData)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        _requireCollectable(paymentInfo, amount);
        bytes32 paymentInfoHash = _markCollected(paymentInfo, uint120(amount), 0);
        emit PaymentAuthorized(paymentInfoHash, paymentInfo, amount, tokenCollector);
        _collect(paymentInfo, amount, tokenCollector, collectorData, ITokenCollector.CollectorType.Payment);
    }

    /// @inheritdoc IAuthCaptureEscrow
    function charge(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        uint256 feeAmount,
        address feeReceiver
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        _requireCollectable(paymentInfo, amount);
        _requireFee(paymentInfo, amount, feeAmount, feeReceiver);
        bytes32 paymentInfoHash = _markCollected(paymentInfo, 0, uint120(amount));
        emit PaymentCharged(paymentInfoHash, paymentInfo, amount, tokenCollector, feeAmount, feeReceiver);
        _collect(paymentInfo, amount, tokenCollector, collectorData, ITokenCollector.CollectorType.Payment);
        _payOut(paymentInfo, amount, feeAmount, feeReceiver);
    }

    /// @inheritdoc IAuthCaptureEscrow
    function capture(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        _requireFee(paymentInfo, amount, feeAmount, feeReceiver);
        if (block.timestamp >= paymentInfo.authorizationExpiry) {
            revert AfterAuthorizationExpiry(uint48(block.timestamp), paymentInfo.authorizationExpiry);
        }
        bytes32 paymentInfoHash = getHash(paymentInfo);
        PaymentState storage state = paymentState[paymentInfoHash];
        uint120 capturable = state.capturableAmount;
        if (amount > capturable) revert InsufficientAuthorization(paymentInfoHash, capturable, amount);
        // Checked above: amount <= capturable < 2^120, and refundable + capturable never exceeds what was collected.
        state.capturableAmount = capturable - uint120(amount);
        state.refundableAmount += uint120(amount);
        emit PaymentCaptured(paymentInfoHash, amount, feeAmount, feeReceiver);
        _payOut(paymentInfo, amount, feeAmount, feeReceiver);
    }

    /// @inheritdoc IAuthCaptureEscrow
    function void(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.operator) {
        (bytes32 paymentInfoHash, uint256 released) = _releaseAuthorization(paymentInfo);
        emit PaymentVoided(paymentInfoHash, released);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, released);
    }

    /// @inheritdoc IAuthCaptureEscrow
    function reclaim(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.payer) {
        if (block.timestamp < paymentInfo.authorizationExpiry) {
            revert BeforeAuthorizationExpiry(uint48(block.timestamp), paymentInfo.authorizationExpiry);
        }
        (bytes32 paymentInfoHash, uint256 released) = _releaseAuthorization(paymentInfo);
        emit PaymentReclaimed(paymentInfoHash, released);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, released);
    }

    /// @inheritdoc IAuthCaptureEscrow
    function refund(PaymentInfo calldata paymentInfo, uint256 amount, address tokenCollector, bytes calldata collectorData)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        if (block.timestamp >= paymentInfo.refundExpiry) {
            revert AfterRefundExpiry(uint48(block.timestamp), paymentInfo.refundExpiry);
        }
        bytes32 paymentInfoHash = getHash(paymentInfo);
        PaymentState storage state = paymentState[paymentInfoHash];
        uint120 refundable = state.refundableAmount;
        if (amount > refundable) revert RefundExceedsCapture(amount, refundable);
        state.refundableAmount = refundable - uint120(amount);
        emit PaymentRefunded(paymentInfoHash, amount, tokenCollector);
        // The refund passes through the operator's store, so the collector is held to the same exact-amount check.
        _collect(paymentInfo, amount, tokenCollector, collectorData, ITokenCollector.CollectorType.Refund);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, amount);
    }

    /// @inheritdoc IAuthCaptureEscrow
    function getHash(PaymentInfo calldata paymentInfo) public view returns (bytes32) {
        bytes32 termsHash = keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo));
        return keccak256(abi.encode(block.chainid, address(this), termsHash));
    }

    /// @inheritdoc IAuthCaptureEscrow
    /// @dev The stand-in's stores are CREATE2 deployments of `TokenStore` (the canonical escrow's are
    /// minimal clones), so the addresses differ from the canonical escrow's for the same operator.
    function getTokenStore(address operator) public view returns (address) {
        bytes32 codeHash = keccak256(type(TokenStore).creationCode);
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), _storeSalt(operator), codeHash)))));
    }

    /// @dev The rules every authorize and charge checks: amount, expiries and fee bounds as signed.
    function _requireCollectable(PaymentInfo calldata paymentInfo, uint256 amount) private view {
        if (amount > paymentInfo.maxAmount) revert ExceedsMaxAmount(amount, paymentInfo.maxAmount);
        uint48 preApproval = paymentInfo.preApprovalExpiry;
        uint48 authorization = paymentInfo.authorizationExpiry;
        uint48 refundBy = paymentInfo.refundExpiry;
        if (block.timestamp >= preApproval) revert AfterPreApprovalExpiry(uint48(block.timestamp), preApproval);
        if (preApproval > authorization || authorization > refundBy) {
            revert InvalidExpiries(preApproval, authorization, refundBy);
        }
        if (paymentInfo.maxFeeBps > BPS_DENOMINATOR) revert FeeBpsOverflow(paymentInfo.maxFeeBps);
        if (paymentInfo.minFeeBps > paymentInfo.maxFeeBps) {
            revert InvalidFeeBpsRange(paymentInfo.minFeeBps, paymentInfo.maxFeeBps);
        }
    }

    /// @dev The fee a capture or charge names must sit within the signed bounds for its amount (each
    /// bound rounded down, so a part too small to carry a whole unit of fee may carry none) and go to
    /// the signed receiver. `amount` is below 2^120 and the bounds below 2^16, so neither product overflows.
    function _requireFee(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        private
        pure
    {
        uint256 minFee = amount * paymentInfo.minFeeBps / BPS_DENOMINATOR;
        uint256 maxFee = amount * paymentInfo.maxFeeBps / BPS_DENOMINATOR;
        if (feeAmount < minFee || feeAmount > maxFee) revert FeeAmountOutOfRange(feeAmount, minFee, maxFee);
        if (feeAmount > 0 && feeReceiver == address(0)) revert ZeroFeeReceiver();
        address signed = paymentInfo.feeReceiver;
        if (signed != address(0) && feeReceiver != signed) revert InvalidFeeReceiver(feeReceiver, signed);
    }

    /// @dev Records a payment's only collection; refuses a second one (a replayed authorization).
    function _markCollected(PaymentInfo calldata paymentInfo, uint120 capturable, uint120 refundable)
        private
        returns (bytes32 paymentInfoHash)
    {
        paymentInfoHash = getHash(paymentInfo);
        if (paymentState[paymentInfoHash].hasCollectedPayment) revert PaymentAlreadyCollected(paymentInfoHash);
        paymentState[paymentInfoHash] =
            PaymentState({hasCollectedPayment: true, capturableAmount: capturable, refundableAmount: refundable});
    }

    /// @dev Zeroes what is still authorized and returns it; refuses when nothing is.
    function _releaseAuthorization(PaymentInfo calldata paymentInfo) private returns (bytes32 paymentInfoHash, uint256 released) {
        paymentInfoHash = getHash(paymentInfo);
        released = paymentState[paymentInfoHash].capturableAmount;
        if (released == 0) revert ZeroAuthorization(paymentInfoHash);
        paymentState[paymentInfoHash].capturableAmount = 0;
    }

    /// @dev Has `tokenCollector` (of the kind the operation needs) move `amount` into the operator's
    /// store, and checks that exactly `amount` arrived.
    function _collect(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        ITokenCollector.CollectorType expected
    ) private {
        if (ITokenCollector(tokenCollector).collectorType() != expected) revert InvalidCollectorForOperation();
        address store = getTokenStore(paymentInfo.operator);
        IERC20 token = IERC20(paymentInfo.token);
        uint256 before = token.balanceOf(store);
        ITokenCollector(tokenCollector).collectTokens(paymentInfo, store, amount, collectorData);
        if (token.balanceOf(store) != before + amount) revert TokenCollectionFailed();
    }

    /// @dev Pays a captured `amount` out of the operator's store: `feeAmount` (checked to be at most
    /// `amount`) to `feeReceiver`, the rest to the receiver; a zero part is not sent.
    function _payOut(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver) private {
        if (feeAmount > 0) _send(paymentInfo.operator, paymentInfo.token, feeReceiver, feeAmount);
        if (amount > feeAmount) _send(paymentInfo.operator, paymentInfo.token, paymentInfo.receiver, amount - feeAmount);
    }

    /// @dev Sends from `operator`'s store, creating the store on its first send.
    function _send(address operator, address token, address recipient, uint256 amount) private {
        address store = getTokenStore(operator);
        if (store.code.length == 0) {
            store = address(new TokenStore{salt: _storeSalt(operator)}());
            emit TokenStoreCreated(operator, store);
        }
        TokenStore(store).sendTokens(token, recipient, amount);
    }

    function _storeSalt(address operator) private pure returns (bytes32) {
        return bytes32(bytes20(operator));
    }
}
