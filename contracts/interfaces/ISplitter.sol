// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ISplitter
/// @notice One-time payments: the buyer pays `amount` of an ERC-20 token, the recipient receives
/// `amount - fee` and the fee collector `fee`, in the same transaction. A payment — the tuple
/// (token, recipient, amount, reference) — settles at most once: paying the same reference with
/// another token, recipient or amount settles nothing the real payment needs, so nobody who learns
/// a reference can block its payment by paying a look-alike first.
/// @dev Amounts are in the token's smallest unit (micro-units for USDC).
/// `fee = moved * feeBps / 10_000`, rounded down, of what actually moves; the recipient receives the
/// remainder, so the payouts always sum to what moved exactly. A signed or approved payment moves
/// `amount`; a payment address moves its whole balance (the amount or more) when it settles, and
/// every other unit that leaves it (`forwardDeposit`, any token) pays the same fee.
/// When a settlement moves more than the amount, the payment address itself emits
/// `DepositForwarder.PaidInExcess(moved, fee)` (the log's address is the payment address) just
/// before `Paid`, whose fields stay the payment's own.
interface ISplitter {
    /// @notice A payment was settled.
    /// @param paymentKey `paymentKey(token, recipient, amount, paymentReference)`: the replay guard's
    /// key, indexed so recovery finds the exact payment with one one-block log query.
    /// @param paymentReference The 32-byte reference the service generated for the intent.
    /// @param recipient The merchant account that received `amount - fee` (and, from a payment address
    /// that held more, the excess less its fee).
    /// @param payer The account whose tokens paid (the buyer).
    /// @param token The ERC-20 token paid.
    /// @param amount The payment's amount, in token units.
    /// @param fee The fee on `amount` (`amount * FEE_BPS / 10_000`, rounded down), in token units: what
    /// the fee collector received for the payment itself. A payment address that held more paid the
    /// fee on all of it; its `PaidInExcess` has what moved and the whole fee.
    event Paid(
        bytes32 indexed paymentKey,
        bytes32 indexed paymentReference,
        address indexed recipient,
        address payer,
        address token,
        uint256 amount,
        uint256 fee
    );

    /// @notice Tokens left a payment address other than as the payment: a later deposit after the
    /// payment settled, another token, or (taken by the recipient) a deposit short of the amount.
    /// `fee` (`amount * FEE_BPS / 10_000`, rounded down) went to the fee collector, `amount - fee` to
    /// the recipient.
    event DepositForwarded(
        bytes32 indexed paymentKey, address indexed recipient, address token, uint256 amount, uint256 fee
    );

    /// @notice The payment address holds less than the amount: a top-up settles it.
    error DepositBelowAmount(address depositAddress, uint256 balance, uint256 amount);

    /// @notice Only the recipient may take the payment's own token from its address before the
    /// payment settled (a deposit short of the amount).
    error NotRecipient(address caller, address recipient);

    /// @notice The payment address holds the payment's amount or more of its token, unsettled: that is
    /// the payment, which only `settleDeposit` moves (the settled-once guard, the fee, `Paid`).
    error DepositCoversAmount(address depositAddress, uint256 balance, uint256 amount);

    /// @notice This payment (same token, recipient, amount and reference) settled before, in block
    /// `settledBlock`.
    error AlreadySettled(bytes32 paymentKey, uint256 settledBlock);
    /// @notice Amount zero, or a recipient that is the zero address, or, at a payment address, a
    /// settlement's amount or a forward's balance of 2^96 or more, which the forwarder's instructions
    /// cannot hold.
    error InvalidPayment(address recipient, uint256 amount);
    /// @notice The permit left an allowance below the amount (for example a front-run permit).
    error PermitAllowanceTooLow(uint256 allowance, uint256 amount);
    /// @notice Constructor arguments out of range.
    error InvalidConfiguration(address feeCollector, uint16 feeBps);

    /// @notice The fee in basis points (1/10_000) taken from every payment; fixed at deployment.
    function FEE_BPS() external view returns (uint16);

    /// @notice The account that receives every fee; fixed at deployment.
    function FEE_COLLECTOR() external view returns (address);

    /// @notice The block number in which the payment with key `paymentKey` settled, or 0 if it never did.
    /// @dev Recovery reads this slot, then queries the `Paid` log with this key in that one block.
    function settledBlock(bytes32 paymentKey) external view returns (uint256);

    /// @notice The replay guard's key of a payment: `keccak256(abi.encode(token, recipient, amount,
    /// paymentReference))`. Anyone who knows the payment can compute it off chain.
    function paymentKey(address token, address recipient, uint256 amount, bytes32 paymentReference)
        external
        pure
        returns (bytes32);

    /// @notice The nonce a buyer signs in the EIP-3009 authorization for this payment; it binds the
    /// authorization to one recipient and one reference so no one can redirect it.
    function authorizationNonce(address recipient, bytes32 paymentReference) external pure returns (bytes32);

    /// @notice keccak256 of the payment-address forwarder's creation code, the same for every payment:
    /// a payment's address is CREATE2 of this contract, the payment's key and this hash, so anyone
    /// can derive it off chain.
    function FORWARDER_CODE_HASH() external view returns (bytes32);

    /// @notice The payment address of a payment: where a plain transfer of `amount` of `token`, from
    /// anywhere (an exchange withdrawal, any wallet), pays it. CREATE2 of this contract with the
    /// payment's key as salt and the forwarder's creation code, the same for every payment.
    function depositAddress(address token, address recipient, uint256 amount, bytes32 paymentReference)
        external
        view
        returns (address);

    /// @notice Settles the payment from its payment address: anyone may call it once the address holds
    /// at least `amount`. The address's whole balance of `token` leaves it, the excess included:
    /// `fee = moved * FEE_BPS / 10_000` (rounded down) to the fee collector, the rest to the recipient.
    /// `Paid` names the payment address as payer and reports the payment's amount and its own fee
    /// (`amount * FEE_BPS / 10_000`); when more than the amount moved, the payment address emits
    /// `PaidInExcess(moved, fee)` with what moved and the whole fee, just before `Paid`. Only code
    /// moves the funds, and only to the recipient and the fee collector.
    function settleDeposit(address token, address recipient, uint256 amount, bytes32 paymentReference) external;

    /// @notice Settles the payment with the buyer's EIP-3009 `transferWithAuthorization` to its payment
    /// address (an x402 `exact` payment whose `payTo` is the payment address), in one transaction: the
    /// authorization moves `amount` from `payer` to the address, then the address settles as in
    /// `settleDeposit` (the whole balance moves, the fee on all of it, `PaidInExcess` for an excess).
    /// Anyone may submit it. When the token refuses the authorization but the address holds the amount
    /// anyway (a front-runner submitted the authorization to the token first), the
    /// settlement goes on with what the address holds, and `Paid` names the payment address as payer, as
    /// `settleDeposit` does; otherwise the call reverts with the token's own refusal. `Paid` names `payer`
    /// only when the authorization moved the funds in this call.
    /// @param nonce The authorization's own 32-byte nonce (chosen by the signer, as x402 clients do).
    /// @param signature An EOA's 65-byte signature, or what an ERC-1271 `payer` accepts.
    function settleDepositFromAuthorization(
        address token,
        address recipient,
        uint256 amount,
        bytes32 paymentReference,
        address payer,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;

    /// @notice Moves the whole balance of `asset` at the payment address out of it, with the fee split
    /// every movement out of a payment address has: `fee = balance * FEE_BPS / 10_000` (rounded down)
    /// to the fee collector, the rest to the recipient; emits `DepositForwarded` with both. A balance
    /// of 2^96 units or more (no real token's) is refused (`InvalidPayment`). What it is
    /// for: another token sent to the address, a later deposit after the payment settled (anyone may
    /// forward either), and, before the payment settled, a deposit of the payment's own token short of
    /// the amount, which only the recipient may forward (to refund it, say). A deposit of the amount or
    /// more, unsettled, is the payment: `DepositCoversAmount`, it settles through `settleDeposit` alone.
    /// @param asset The token to move; the payment's own `token` or any other.
    function forwardDeposit(address token, address recipient, uint256 amount, bytes32 paymentReference, address asset)
        external;

    /// @notice Pays through an existing allowance of `msg.sender` to this contract.
    function pay(address token, address recipient, uint256 amount, bytes32 paymentReference) external;

    /// @notice Pays with an EIP-2612 permit signed by `msg.sender`, in one transaction.
    /// @dev A permit already consumed by someone else is tolerated when the allowance suffices.
    function payWithPermit(
        address token,
        address recipient,
        uint256 amount,
        bytes32 paymentReference,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;

    /// @notice Pays with an EIP-3009 `receiveWithAuthorization` signed by `payer`; anyone may submit
    /// it, so the buyer needs no ETH. The authorization's nonce must be
    /// `authorizationNonce(recipient, paymentReference)`.
    /// @param validAfter Unix seconds, exclusive lower bound of the authorization.
    /// @param validBefore Unix seconds, exclusive upper bound of the authorization.
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
    ) external;

    /// @notice As `payWithAuthorization`, with the authorization's signature as bytes (USDC v2.2's
    /// `receiveWithAuthorization(..., bytes signature)`), so a contract account (ERC-1271: a Safe, a
    /// smart wallet) pays in one transaction with whatever signature it validates.
    function payWithAuthorizationSignature(
        address token,
        address payer,
        address recipient,
        uint256 amount,
        bytes32 paymentReference,
        uint256 validAfter,
        uint256 validBefore,
        bytes calldata signature
    ) external;
}
