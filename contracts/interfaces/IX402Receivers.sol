// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IX402Receivers
/// @notice x402 receivers: one address per (recipient, token) on this chain, a CREATE2 address of
/// this contract known before anything is deployed there, that a merchant writes once as the static
/// `payTo` of its x402 routes. Whatever a receiver holds, of any ERC-20, can only leave split: the fee
/// to the fee collector and the rest to the recipient, by anyone's call (`split` for the token of its
/// salt, `splitAsset` for any other), so nothing sent to it is stranded. A receiver is deployed once (by its
/// first settlement or split, or by anyone) and never self-destructs.
/// @dev `fee = moved * FEE_BPS / 10_000`, rounded down, on everything that leaves (exact for any
/// balance); the recipient receives the rest, so the payouts always sum to what the receiver held. No storage per payment: the token's EIP-3009 nonce
/// is the only replay guard of a settlement.
interface IX402Receivers {
    /// @notice An x402 settlement: `payer`'s EIP-3009 authorization moved `amount` into the
    /// recipient's receiver and the same transaction split it out.
    /// @param recipient The merchant account that received `amount - fee`.
    /// @param payer The authorization's signer (the agent).
    /// @param nonce The authorization's EIP-3009 nonce: the merchant reconciles by the nonce the agent signed.
    /// @param token The token paid (USDC).
    /// @param amount The authorization's value, in token units.
    /// @param fee The part of `amount` sent to the fee collector.
    event ReceiverPaid(
        address indexed recipient, address indexed payer, bytes32 indexed nonce, address token, uint256 amount, uint256 fee
    );

    /// @notice A receiver's balance other than a settlement's own amount (a plain transfer, an
    /// authorization submitted straight to the token, or any other ERC-20 sent to it) was split:
    /// `amount - fee` to the recipient, `fee` to the fee collector.
    /// @param token The token that moved: the receiver's own (the token of its salt), or, from
    /// `splitAsset`, any other. A reader that follows one token's payments filters on it.
    event ReceiverSplit(address indexed recipient, address indexed token, address indexed receiver, uint256 amount, uint256 fee);

    /// @notice Constructor arguments out of range.
    error InvalidConfiguration(address feeCollector, uint16 feeBps);
    /// @notice The recipient is the zero address.
    error InvalidRecipient();

    /// @notice The fee in basis points (1/10_000) taken from whatever a receiver holds; fixed at deployment.
    function FEE_BPS() external view returns (uint16);

    /// @notice The account that receives every fee; fixed at deployment.
    function FEE_COLLECTOR() external view returns (address);

    /// @notice `keccak256` of the receiver's creation code: with this contract's address and the
    /// salt `keccak256(abi.encode(recipient, token))` it gives every receiver's address offline.
    function RECEIVER_CODE_HASH() external view returns (bytes32);

    /// @notice The receiver of `recipient` for `token`, whether deployed or not.
    function receiverOf(address recipient, address token) external view returns (address);

    /// @notice Deploys the receiver of `recipient` for `token` (no-op when it exists) and returns it.
    function deployReceiver(address recipient, address token) external returns (address receiver);

    /// @notice Settles an x402 `exact` payment in one transaction: the token's
    /// `transferWithAuthorization(payer, receiver, amount, ...)` into the recipient's receiver, then
    /// the receiver's whole balance out, split. Anyone may call it; the token refuses a used nonce,
    /// a bad signature (EOA or ERC-1271) or an authorization outside its window.
    /// @param signature An EOA's 65-byte (r, s, v), or what an ERC-1271 account accepts for `payer`.
    function settle(
        address token,
        address recipient,
        address payer,
        uint256 amount,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;

    /// @notice Splits whatever the receiver of `recipient` for `token` holds (deploying it first if
    /// needed): anyone may call it. Returns what was split and its fee (zero when it held nothing).
    function split(address token, address recipient) external returns (uint256 amount, uint256 fee);

    /// @notice Splits whatever the receiver of `recipient` for `token` holds of `asset`, any ERC-20
    /// (another stablecoin sent to a merchant's `payTo`, say), with the same fee (deploying the
    /// receiver first if needed): anyone may call it. Emits `ReceiverSplit` naming `asset`. Returns
    /// what was split and its fee (zero when it held none).
    function splitAsset(address token, address recipient, address asset) external returns (uint256 amount, uint256 fee);
}
