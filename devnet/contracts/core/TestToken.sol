// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @notice Devnet ERC20 with its own decimals (USDG, listed, stock and unlisted tokens).
/// The owner mints; it may also freeze holders or pause the whole token, so that basket routes can
/// meet a frozen or a paused token (every transfer, mint and burn reverts while paused).
/// EIP-3009 as USDC has it (transferWithAuthorization, receiveWithAuthorization, cancelAuthorization,
/// authorizationState; EIP-712 domain of the token's name and version "2"), so x402's `exact` scheme
/// can pay in USDG: the payer signs, a facilitator sends. A signature is the payer's when it recovers to the
/// payer (ECDSA: a plain wallet, or one delegated with EIP-7702, which keeps its key) or, failing that, when
/// the payer's code accepts it (ERC-1271: a contract wallet).
contract TestToken is ERC20, Ownable, EIP712 {
    uint8 private immutable _decimals;
    mapping(address => bool) public frozen;
    bool public paused;
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    event Frozen(address indexed holder, bool frozen);
    event Paused(bool paused);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_)
        ERC20(name_, symbol_)
        Ownable(owner_)
        EIP712(name_, "2")
    {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// @notice The EIP-712 domain's version, as USDC answers it.
    function version() external pure returns (string memory) {
        return "2";
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    function setFrozen(address holder, bool value) external onlyOwner {
        frozen[holder] = value;
        emit Frozen(holder, value);
    }

    function setPaused(bool value) external onlyOwner {
        paused = value;
        emit Paused(value);
    }

    /// @notice Whether `nonce` of `authorizer` was used or canceled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @notice Moves `value` from `from` to `to` with `from`'s signed authorization (anyone may send it).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _authorized(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
        _transfer(from, to, value);
    }

    /// @notice The same with a signature of any form (EOA or ERC-1271 wallet).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        _authorized(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature);
        _transfer(from, to, value);
    }

    /// @notice As transferWithAuthorization, but only the payee may send it (no front-running of deposits).
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
    ) external {
        require(to == msg.sender, "EIP3009: caller must be the payee");
        _authorized(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
        _transfer(from, to, value);
    }

    /// @notice Cancels an unused authorization of the signer.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        require(!_authorizationStates[authorizer][nonce], "EIP3009: authorization is used or canceled");
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)));
        require(_isValidSignature(authorizer, digest, abi.encodePacked(r, s, v)), "EIP3009: invalid signature");
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    // Checks the window, the nonce and the signature, then marks the nonce used (USDC's order and messages).
    function _authorized(
        bytes32 typehash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        require(block.timestamp > validAfter, "EIP3009: authorization is not yet valid");
        require(block.timestamp < validBefore, "EIP3009: authorization is expired");
        require(!_authorizationStates[from][nonce], "EIP3009: authorization is used or canceled");
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(typehash, from, to, value, validAfter, validBefore, nonce)));
        require(_isValidSignature(from, digest, signature), "EIP3009: invalid signature");
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
    }

    // ECDSA first, then ERC-1271: the order of Paxos's USDG (OpenZeppelin 4.9's SignatureChecker). OpenZeppelin 5's
    // SignatureChecker, like USDC's, asks only ERC-1271 of an address with code, so an EIP-7702 wallet whose delegate
    // has no isValidSignature could not pay with its own key. ERC-1271 can only speak for `signer` itself: a wallet
    // that accepts anything exposes its own balance, nobody else's.
    function _isValidSignature(address signer, bytes32 digest, bytes memory signature) private view returns (bool) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(digest, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == signer) return true;
        return SignatureChecker.isValidERC1271SignatureNow(signer, digest, signature);
    }

    function _update(address from, address to, uint256 value) internal override {
        require(!paused, "TOKEN_PAUSED");
        require(!frozen[from] && !frozen[to], "TOKEN_FROZEN");
        super._update(from, to, value);
    }
}
