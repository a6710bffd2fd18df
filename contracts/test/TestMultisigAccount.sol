// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title TestMultisigAccount
/// @notice A two-of-two ERC-1271 contract account for tests, as strict as real smart accounts are: its
/// signature is both owners' 65-byte ECDSA signatures over the digest, one after the other (130
/// bytes, as a Safe packs its owners'), and `isValidSignature` refuses a call that a strict ABI decoder
/// would. Either owner can make the account call anything (approve, revoke). Test networks only.
contract TestMultisigAccount is IERC1271 {
    address public immutable FIRST_OWNER;
    address public immutable SECOND_OWNER;

    /// @dev The length of both owners' signatures packed.
    uint256 private constant SIGNATURES_LENGTH = 130;

    error NotOwner(address caller);
    error CallFailed(bytes returnData);
    /// @dev The call's data is not exactly the ABI encoding of (bytes32, bytes) with its signature.
    error MalformedCall(uint256 length, uint256 expected);

    constructor(address firstOwner, address secondOwner) {
        FIRST_OWNER = firstOwner;
        SECOND_OWNER = secondOwner;
    }

    function execute(address target, uint256 value, bytes calldata data) external returns (bytes memory) {
        if (msg.sender != FIRST_OWNER && msg.sender != SECOND_OWNER) revert NotOwner(msg.sender);
        (bool ok, bytes memory result) = target.call{value: value}(data);
        if (!ok) revert CallFailed(result);
        return result;
    }

    /// @dev The signature is read where the call's offset word points (the ABI decoder follows it),
    /// and the call must be exactly selector, hash, offset, length and the signature padded to a word:
    /// trailing bytes are refused, as a strict decoder refuses them.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        uint256 expected = 4 + 3 * 32 + (signature.length + 31) / 32 * 32;
        if (msg.data.length != expected) revert MalformedCall(msg.data.length, expected);
        if (signature.length != SIGNATURES_LENGTH) return 0xffffffff;
        (address first, ECDSA.RecoverError firstErr,) = ECDSA.tryRecoverCalldata(hash, signature[:65]);
        (address second, ECDSA.RecoverError secondErr,) = ECDSA.tryRecoverCalldata(hash, signature[65:]);
        bool valid = firstErr == ECDSA.RecoverError.NoError && secondErr == ECDSA.RecoverError.NoError
            && first == FIRST_OWNER && second == SECOND_OWNER;
        return valid ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}
