// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC3009} from "./interfaces/IERC3009.sol";
import {IX402Receivers} from "./interfaces/IX402Receivers.sol";
import {X402Receiver} from "./X402Receiver.sol";

/// @title X402Receivers
/// @notice Creates and drives the x402 receivers: one CREATE2 address per (recipient, token), the
/// static `payTo` of a merchant's x402 routes, whose funds, of any ERC-20, only ever leave split.
/// @dev No owner, no upgrade path, no storage. The fee collector and fee are the Splitter's (the same
/// constructor values, set by the same deployment). A settlement keeps no record: the token's
/// EIP-3009 nonce refuses a second use of an authorization.
/// Token assumptions: a standard ERC-20 that moves exactly the amount asked, with EIP-3009 (USDC).
contract X402Receivers is IX402Receivers {
    uint16 private constant BPS_DENOMINATOR = 10_000;

    /// @inheritdoc IX402Receivers
    uint16 public immutable FEE_BPS;
    /// @inheritdoc IX402Receivers
    address public immutable FEE_COLLECTOR;
    /// @inheritdoc IX402Receivers
    bytes32 public immutable RECEIVER_CODE_HASH;

    /// @param feeCollector The account that receives every fee.
    /// @param feeBps The fee in basis points; at most 10_000.
    constructor(address feeCollector, uint16 feeBps) {
        if (feeCollector == address(0) || feeBps > BPS_DENOMINATOR) revert InvalidConfiguration(feeCollector, feeBps);
        FEE_COLLECTOR = feeCollector;
        FEE_BPS = feeBps;
        RECEIVER_CODE_HASH = keccak256(type(X402Receiver).creationCode);
    }

    /// @inheritdoc IX402Receivers
    function receiverOf(address recipient, address token) public view returns (address) {
        return address(
            uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), _salt(recipient, token), RECEIVER_CODE_HASH))))
        );
    }

    /// @inheritdoc IX402Receivers
    function deployReceiver(address recipient, address token) external returns (address receiver) {
        if (recipient == address(0)) revert InvalidRecipient();
        receiver = receiverOf(recipient, token);
        if (receiver.code.length == 0) new X402Receiver{salt: _salt(recipient, token)}();
    }

    /// @inheritdoc IX402Receivers
    function settle(
        address token,
        address recipient,
        address payer,
        uint256 amount,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        if (recipient == address(0)) revert InvalidRecipient();
        bytes32 salt = _salt(recipient, token);
        address receiver = address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, RECEIVER_CODE_HASH)))));
        IERC3009(token).transferWithAuthorization(payer, receiver, amount, validAfter, validBefore, nonce, signature);
        if (receiver.code.length == 0) new X402Receiver{salt: salt}();
        (uint256 held, uint256 fee) = _split(receiver, token, recipient);
        // The amount's own fee, rounded as a lone payment's; what the receiver held besides (a plain
        // transfer before this one) was split in the same call and is reported as such.
        uint256 paidFee = amount * FEE_BPS / BPS_DENOMINATOR;
        emit ReceiverPaid(recipient, payer, nonce, token, amount, paidFee);
        if (held != amount) emit ReceiverSplit(recipient, token, receiver, held - amount, fee - paidFee);
    }

    /// @inheritdoc IX402Receivers
    function split(address token, address recipient) external returns (uint256 amount, uint256 fee) {
        if (recipient == address(0)) revert InvalidRecipient();
        bytes32 salt = _salt(recipient, token);
        address receiver = receiverOf(recipient, token);
        if (receiver.code.length == 0) new X402Receiver{salt: salt}();
        (amount, fee) = _split(receiver, token, recipient);
        if (amount != 0) emit ReceiverSplit(recipient, token, receiver, amount, fee);
    }

    /// @inheritdoc IX402Receivers
    function splitAsset(address token, address recipient, address asset) external returns (uint256 amount, uint256 fee) {
        if (recipient == address(0)) revert InvalidRecipient();
        bytes32 salt = _salt(recipient, token);
        address receiver = receiverOf(recipient, token);
        if (receiver.code.length == 0) new X402Receiver{salt: salt}();
        (amount, fee) = _split(receiver, asset, recipient);
        if (amount != 0) emit ReceiverSplit(recipient, asset, receiver, amount, fee);
    }

    /// @dev Tells the receiver to split its whole balance of `token` (X402Receiver's three-word call).
    function _split(address receiver, address token, address recipient) private returns (uint256 held, uint256 fee) {
        uint256 what = uint256(uint160(token)) | uint256(FEE_BPS) << 160;
        address feeCollector = FEE_COLLECTOR;
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            let free := mload(0x40)
            mstore(free, what)
            mstore(add(free, 0x20), recipient)
            mstore(add(free, 0x40), feeCollector)
            if iszero(call(gas(), receiver, 0, free, 0x60, free, 0x40)) {
                returndatacopy(free, 0, returndatasize())
                revert(free, returndatasize())
            }
            if lt(returndatasize(), 0x40) { revert(0, 0) }
            held := mload(free)
            fee := mload(add(free, 0x20))
        }
    }

    /// @dev A receiver's CREATE2 salt: `keccak256(abi.encode(recipient, token))`.
    function _salt(address recipient, address token) private pure returns (bytes32) {
        return keccak256(abi.encode(recipient, token));
    }
}
