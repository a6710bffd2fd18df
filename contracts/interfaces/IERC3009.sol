// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IERC3009
/// @notice The subset of EIP-3009 ("Transfer With Authorization") the Splitter uses; USDC implements it.
interface IERC3009 {
    /// @notice Moves `value` from `from` to `to` (who must be the caller) on `from`'s signed authorization.
    /// @param validAfter Unix seconds; the authorization is valid strictly after this time.
    /// @param validBefore Unix seconds; the authorization is valid strictly before this time.
    /// @param nonce A 32-byte value chosen by the signer; each nonce is usable once per `from`.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;

    /// @notice As above, with the signature as bytes (USDC v2.2): an EOA's 65-byte (r, s, v), or
    /// whatever an ERC-1271 contract account (a Safe, a smart wallet) accepts for `from`.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;

    /// @notice Moves `value` from `from` to `to` on `from`'s signed authorization; anyone may submit it
    /// (the `TransferWithAuthorization` an x402 client signs). The signature as bytes (USDC v2.2): an
    /// EOA's 65-byte (r, s, v), or whatever an ERC-1271 contract account accepts for `from`.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}
