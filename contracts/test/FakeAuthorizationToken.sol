// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title FakeAuthorizationToken
/// @notice Hostile test token: accepts any EIP-3009 authorization without checking or moving anything,
/// reports a large balance everywhere and "moves" nothing. With it anyone can call
/// `X402Receivers.settle` for any nonce and make it emit a `ReceiverPaid` naming that nonce: what a
/// verdict must not take for the USDC payment's split.
contract FakeAuthorizationToken {
    function transferWithAuthorization(address, address, uint256, uint256, uint256, bytes32, bytes calldata) external pure {}

    function balanceOf(address) external pure returns (uint256) {
        return type(uint128).max;
    }

    function transfer(address, uint256) external pure returns (bool) {
        return true;
    }
}
