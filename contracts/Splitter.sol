// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISplitter} from "./interfaces/ISplitter.sol";
import {IERC3009} from "./interfaces/IERC3009.sol";
import {DepositForwarder} from "./DepositForwarder.sol";

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

    /// @inheritdoc ISplitter
    bytes32 public immutable FORWARDER_CODE_HASH;

    /// @dev Amounts a payment address moves fit in 96 bits, packed above an address in one word.
    uint256 private constant AMOUNT_LIMIT = 1 << 96;

    /// @dev What the forwarder being created moves, set for the instant of its creation (transient),
    /// two words: `token | minimum << 160` and `recipient`.
    uint256 private transient _moveWhat;
    uint256 private transient _moveWhere;

    /// @dev The forwarders' third word of instructions, fixed at deployment: `FEE_COLLECTOR | FEE_BPS << 160`.
    uint256 private immutable FEES_WORD;

    /// @param feeCollector The account that receives every fee.
    /// @param feeBps The fee in basis points; at most 10_000.
    constructor(address feeCollector, uint16 feeBps) {
        if (feeCollector == address(0) || feeBps > BPS_DENOMINATOR) {
            revert InvalidConfiguration(feeCollector, feeBps);
        }
        FEE_COLLECTOR = feeCollector;
        FEE_BPS = feeBps;
        FEES_WORD = uint256(uint160(feeCollector)) | uint256(feeBps) << 160;
        FORWARDER_CODE_HASH = keccak256(type(DepositForwarder).creationCode);
    }

    /// @inheritdoc ISplitter
    function paymentKey(address token, address recipient, uint256 amount, bytes32 paymentReference)
        public
        pure
        returns (bytes32 key)
    {
        // keccak256(abi.encode(token, recipient, amount, paymentReference)), hashed where the free
        // memory starts without moving its pointer: it runs on every payment.
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            let free := mload(0x40)
            mstore(free, token)
            mstore(add(free, 0x20), recipient)
            mstore(add(free, 0x40), amount)
            mstore(add(free, 0x60), paymentReference)
            key := keccak256(free, 0x80)
        }
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

    /// @inheritdoc ISplitter
    function depositAddress(address token, address recipient, uint256 amount, bytes32 paymentReference)
        public
        view
        returns (address)
    {
        return _depositAddress(paymentKey(token, recipient, amount, paymentReference));
    }

    /// @inheritdoc ISplitter
    function settleDeposit(address token, address recipient, uint256 amount, bytes32 paymentReference) external {
        // A payment address moves amounts under 2^96 (instructions pack them beside an address).
        if (amount >= AMOUNT_LIMIT) revert InvalidPayment(recipient, amount);
        bytes32 key = paymentKey(token, recipient, amount, paymentReference);
        uint256 fee = _guard(key, recipient, amount);
        // The forwarder refuses a balance under the amount (DepositBelowAmount, which undoes the
        // guard above); it moves the whole balance with the fee on all of it, and reports an excess
        // (PaidInExcess). `Paid` reports the payment's own amount and fee.
        address deposit = _moveFromDeposit(key, token, recipient, amount);
        emit Paid(key, paymentReference, recipient, deposit, token, amount, fee);
    }

    /// @inheritdoc ISplitter
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
    ) external {
        // settleDeposit's steps, written out here rather than shared through _guard and
        // _moveFromDeposit: a third caller of those keeps the optimizer from inlining them into
        // settleDeposit, whose gas target (120,000) has no room for the calls.
        if (amount >= AMOUNT_LIMIT || recipient == address(0) || amount == 0) revert InvalidPayment(recipient, amount);
        bytes32 key = paymentKey(token, recipient, amount, paymentReference);
        uint256 previous = settledBlock[key];
        if (previous != 0) revert AlreadySettled(key, previous);
        settledBlock[key] = block.number;
        uint256 fee = amount * FEE_BPS / BPS_DENOMINATOR;
        address deposit = _depositAddress(key);
        // A refused authorization is not the end when the address holds the amount anyway: one already
        // used (front-run straight to the token) put its funds there, and the forwarder below settles
        // them (`Paid` then names the address, as settleDeposit does). Otherwise the token's own refusal
        // (paused, blacklisted, expired, a bad signature) is the answer.
        try IERC3009(token).transferWithAuthorization(payer, deposit, amount, validAfter, validBefore, nonce, signature) {}
        catch (bytes memory refusal) {
            if (IERC20(token).balanceOf(deposit) < amount) {
                // solhint-disable-next-line no-inline-assembly
                assembly ("memory-safe") {
                    revert(add(refusal, 0x20), mload(refusal))
                }
            }
            payer = deposit;
        }
        _moveWhat = uint256(uint160(token)) | amount << 160;
        _moveWhere = uint256(uint160(recipient));
        new DepositForwarder{salt: key}();
        emit Paid(key, paymentReference, recipient, payer, token, amount, fee);
    }

    /// @inheritdoc ISplitter
    function forwardDeposit(address token, address recipient, uint256 amount, bytes32 paymentReference, address asset)
        external
    {
        if (recipient == address(0)) revert InvalidPayment(recipient, amount);
        bytes32 key = paymentKey(token, recipient, amount, paymentReference);
        address deposit = _depositAddress(key);
        uint256 balance = IERC20(asset).balanceOf(deposit);
        // The payment's own token, before the payment settled, is the buyer's payment in progress. A
        // short deposit is the recipient's to take (to refund it, say); the amount or more is the
        // payment itself, which only settleDeposit moves: through the guard, with `Paid`.
        if (asset == token && settledBlock[key] == 0) {
            if (msg.sender != recipient) revert NotRecipient(msg.sender, recipient);
            if (balance >= amount) revert DepositCoversAmount(deposit, balance, amount);
        }
        // Nothing leaves a payment address without the fee: otherwise a deposit one unit short, a
        // settled address reused, or the token sent to the address of a payment named in another
        // token would each be a fee-free payment. The balance is the forwarder's `minimum` (all of
        // what it moves, so it reports no excess: a forward is no settlement), packed in 96 bits as
        // settleDeposit packs its amount.
        if (balance >= AMOUNT_LIMIT) revert InvalidPayment(recipient, balance);
        // The forwarder computes the same fee on the same balance; here it is only reported.
        uint256 fee = balance * FEE_BPS / BPS_DENOMINATOR;
        // _moveFromDeposit's steps, written out for settleDeposit's sake (see settleDepositFromAuthorization).
        _moveWhat = uint256(uint160(asset)) | balance << 160;
        _moveWhere = uint256(uint160(recipient));
        new DepositForwarder{salt: key}();
        emit DepositForwarded(key, recipient, asset, balance, fee);
    }

    /// @notice The instructions of the forwarder being created, for it alone to read: called with
    /// empty calldata, answers `token | minimum << 160`, `recipient` (both zero outside a settle or
    /// forward) and `FEE_COLLECTOR | FEE_BPS << 160`. Any other unknown call reverts, as it would
    /// without this function.
    /// @dev A selector-less answer: the forwarder's one call back costs no dispatch or ABI coding.
    // solhint-disable-next-line no-complex-fallback
    fallback() external {
        uint256 what = _moveWhat;
        uint256 where = _moveWhere;
        uint256 fees = FEES_WORD;
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            // An unknown selector reverts with no data, exactly as a Splitter without a fallback does.
            if calldatasize() { revert(0, 0) }
            mstore(0x00, what)
            mstore(0x20, where)
            mstore(0x40, fees)
            return(0x00, 0x60)
        }
    }

    /// @dev Creates the payment address's forwarder (CREATE2, salt = the payment's key), which checks
    /// the address holds `minimum` of `token`, sends the fee on its whole balance to the fee collector
    /// and the rest to the recipient, and self-destructs; returns the address. The instructions live
    /// in transient storage: the transaction's next forwarder overwrites them before it reads them.
    /// `minimum` is under 2^96 (settleDeposit refuses larger amounts).
    function _moveFromDeposit(bytes32 key, address token, address recipient, uint256 minimum) private returns (address) {
        _moveWhat = uint256(uint160(token)) | minimum << 160;
        _moveWhere = uint256(uint160(recipient));
        return address(new DepositForwarder{salt: key}());
    }

    /// @dev Checks and records the payment before any token moves (checks-effects-interactions),
    /// so a reentrant token cannot settle the same payment twice. The guard is keyed by the whole
    /// payment, not the reference alone: a look-alike (another token, recipient or amount) gets its
    /// own key and cannot block the real one.
    function _settle(address token, address payer, address recipient, uint256 amount, bytes32 paymentReference)
        private
        returns (uint256 fee, uint256 net)
    {
        bytes32 key = paymentKey(token, recipient, amount, paymentReference);
        fee = _guard(key, recipient, amount);
        emit Paid(key, paymentReference, recipient, payer, token, amount, fee);
        net = amount - fee;
    }

    /// @dev Refuses a bad or settled payment, records it in the guard, and returns its fee.
    function _guard(bytes32 key, address recipient, uint256 amount) private returns (uint256 fee) {
        if (recipient == address(0) || amount == 0) revert InvalidPayment(recipient, amount);
        uint256 previous = settledBlock[key];
        if (previous != 0) revert AlreadySettled(key, previous);
        settledBlock[key] = block.number;
        fee = amount * FEE_BPS / BPS_DENOMINATOR;
    }

    /// @dev The CREATE2 address of the forwarder with salt `key`: a payment's payment address.
    function _depositAddress(bytes32 key) private view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), key, FORWARDER_CODE_HASH)))));
    }
}
