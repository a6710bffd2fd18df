// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IAuthCaptureEscrow
/// @notice The interface of Commerce Payments' `AuthCaptureEscrow` v1.1 (base/commerce-payments), as its
/// callers see it: the same function signatures, `PaymentInfo` type string and hash, events and custom
/// errors, so one ABI drives the canonical escrow on Base and Base Sepolia and the project's stand-in
/// on the local chain. A payment is authorized once (the payer's funds move into escrow, up to
/// `maxAmount`), captured in parts by its operator before `authorizationExpiry` (each part split into
/// a fee amount the operator names, within the payer-signed bounds, and the rest to the receiver), voided by the operator or
/// reclaimed by the payer after `authorizationExpiry`, and refunded by the operator before
/// `refundExpiry`, up to what was captured.
/// @dev Amounts are in the token's smallest units (USDC: 6 decimals); times are unix seconds compared
/// with `block.timestamp`; a part's fee is a token amount, bounded by the signed basis points (1/10_000)
/// of that part, each bound rounded down. A payment is named by `getHash`, which
/// covers the chain id and the escrow's own address: the same terms on another chain or escrow are
/// another payment.
interface IAuthCaptureEscrow {
    /// @notice The terms of one payment, all signed by the payer (through its token collector).
    struct PaymentInfo {
        /// @dev The only account that may authorize, capture, void, charge or refund this payment.
        address operator;
        /// @dev The account the funds come from, and go back to on void, reclaim or refund.
        address payer;
        /// @dev The account each capture pays, less the fee.
        address receiver;
        /// @dev The ERC-20 moved (USDC).
        address token;
        /// @dev The most that may be authorized or charged, in token units.
        uint120 maxAmount;
        /// @dev Unix seconds: authorize or charge only strictly before it.
        uint48 preApprovalExpiry;
        /// @dev Unix seconds: capture only strictly before it; the payer may reclaim from it on.
        uint48 authorizationExpiry;
        /// @dev Unix seconds: refund only strictly before it.
        uint48 refundExpiry;
        /// @dev The lowest fee a capture or charge may take, in basis points.
        uint16 minFeeBps;
        /// @dev The highest fee a capture or charge may take, in basis points (at most 10_000).
        uint16 maxFeeBps;
        /// @dev The fee's only receiver; the zero address lets the operator name one per capture.
        address feeReceiver;
        /// @dev Entropy, so that equal terms make distinct payments.
        uint256 salt;
    }

    /// @notice A payment was charged: collected and captured in one call.
    /// @param amount Token units collected from the payer (fee included).
    /// @param tokenCollector The collector that pulled the funds.
    /// @param feeAmount The fee taken, in token units (part of `amount`).
    /// @param feeReceiver Who received the fee.
    event PaymentCharged(
        bytes32 indexed paymentInfoHash,
        PaymentInfo paymentInfo,
        uint256 amount,
        address tokenCollector,
        uint256 feeAmount,
        address feeReceiver
    );

    /// @notice A payment was authorized: `amount` token units moved from the payer into escrow.
    event PaymentAuthorized(bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector);

    /// @notice `amount` token units left escrow: `feeAmount` of them to `feeReceiver`, the rest to the receiver.
    event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint256 feeAmount, address feeReceiver);

    /// @notice The operator voided the authorization: `amount` token units went back to the payer.
    event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount);

    /// @notice The payer reclaimed the expired authorization: `amount` token units went back to it.
    event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount);

    /// @notice `amount` token units of what was captured went back to the payer, pulled by `tokenCollector`.
    event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector);

    /// @notice The operator's token store (where its escrowed funds sit) was created.
    event TokenStoreCreated(address indexed operator, address tokenStore);

    /// @notice The caller is not the account the function is reserved for.
    error InvalidSender(address sender, address expected);
    /// @notice The amount is zero.
    error ZeroAmount();
    /// @notice The amount does not fit in 120 bits.
    error AmountOverflow(uint256 amount, uint256 limit);
    /// @notice The amount authorized or charged exceeds `maxAmount`.
    error ExceedsMaxAmount(uint256 amount, uint256 maxAmount);
    /// @notice Authorize or charge at or after `preApprovalExpiry`.
    error AfterPreApprovalExpiry(uint48 timestamp, uint48 expiry);
    /// @notice The expiries are not ordered `preApproval <= authorization <= refund`.
    error InvalidExpiries(uint48 preApproval, uint48 authorization, uint48 refund);
    /// @notice `maxFeeBps` above 10_000.
    error FeeBpsOverflow(uint16 feeBps);
    /// @notice `minFeeBps` above `maxFeeBps`.
    error InvalidFeeBpsRange(uint16 minFeeBps, uint16 maxFeeBps);
    /// @notice The fee amount asked is outside the payer-signed bounds for this amount:
    /// `floor(amount * minFeeBps / 10_000)` to `floor(amount * maxFeeBps / 10_000)`, both included.
    error FeeAmountOutOfRange(uint256 feeAmount, uint256 minFee, uint256 maxFee);
    /// @notice A non-zero fee to the zero address.
    error ZeroFeeReceiver();
    /// @notice The fee receiver differs from the one the payer signed.
    error InvalidFeeReceiver(address attempted, address expected);
    /// @notice A refund collector used to pay, or a payment collector used to refund.
    error InvalidCollectorForOperation();
    /// @notice The collector did not move exactly the amount into the operator's token store.
    error TokenCollectionFailed();
    /// @notice The payment was already authorized or charged (each payment is collected once).
    error PaymentAlreadyCollected(bytes32 paymentInfoHash);
    /// @notice Capture at or after `authorizationExpiry`.
    error AfterAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    /// @notice Capture of more than is still authorized.
    error InsufficientAuthorization(bytes32 paymentInfoHash, uint256 authorizedAmount, uint256 requestedAmount);
    /// @notice Void or reclaim with nothing authorized.
    error ZeroAuthorization(bytes32 paymentInfoHash);
    /// @notice Reclaim before `authorizationExpiry`.
    error BeforeAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    /// @notice Refund at or after `refundExpiry`.
    error AfterRefundExpiry(uint48 timestamp, uint48 expiry);
    /// @notice Refund of more than was captured and not yet refunded.
    error RefundExceedsCapture(uint256 refund, uint256 captured);

    /// @notice `keccak256` of the `PaymentInfo` type string.
    function PAYMENT_INFO_TYPEHASH() external view returns (bytes32);

    /// @notice What a payment holds now.
    /// @return hasCollectedPayment Whether it was ever authorized or charged.
    /// @return capturableAmount Token units in escrow that the operator may still capture.
    /// @return refundableAmount Token units captured and not yet refunded.
    function paymentState(bytes32 paymentInfoHash)
        external
        view
        returns (bool hasCollectedPayment, uint120 capturableAmount, uint120 refundableAmount);

    /// @notice Collects `amount` (at most `maxAmount`) from the payer through `tokenCollector` and
    /// captures it at once, `feeAmount` of it to `feeReceiver`. Operator only; before `preApprovalExpiry`.
    function charge(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        uint256 feeAmount,
        address feeReceiver
    ) external;

    /// @notice Collects `amount` (at most `maxAmount`) from the payer into escrow through
    /// `tokenCollector`, once per payment. Operator only; before `preApprovalExpiry`.
    /// @param collectorData What the collector needs (the ERC-3009 collector: the payer's signature).
    function authorize(PaymentInfo calldata paymentInfo, uint256 amount, address tokenCollector, bytes calldata collectorData)
        external;

    /// @notice Pays `amount` of what is authorized out of escrow, `feeAmount` of it to `feeReceiver`
    /// and the rest to the receiver; repeatable up to the authorized amount. Operator only; before
    /// `authorizationExpiry`.
    function capture(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver) external;

    /// @notice Sends everything still authorized back to the payer. Operator only; any time.
    function void(PaymentInfo calldata paymentInfo) external;

    /// @notice Sends everything still authorized back to the payer. Payer only; from `authorizationExpiry` on.
    function reclaim(PaymentInfo calldata paymentInfo) external;

    /// @notice Pulls `amount` through a refund collector and sends it to the payer; at most what was
    /// captured and not yet refunded. Operator only; before `refundExpiry`.
    function refund(PaymentInfo calldata paymentInfo, uint256 amount, address tokenCollector, bytes calldata collectorData)
        external;

    /// @notice The payment's name: `keccak256(abi.encode(chainid, escrow, keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo))))`.
    function getHash(PaymentInfo calldata paymentInfo) external view returns (bytes32);

    /// @notice Where `operator`'s escrowed funds sit, whether created yet or not.
    function getTokenStore(address operator) external view returns (address);
}
