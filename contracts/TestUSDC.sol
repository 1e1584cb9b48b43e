// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title Test settlement token for local chains: 6 decimals like USDC, EIP-2612 permit, and a mint
/// restricted to its owner (the daemon's operator, which wires it to the sim faucet).
/// @notice Never deployed on a real network: there the daemon takes --settlement-token.
contract TestUSDC is ERC20, ERC20Permit, Ownable {
    constructor(address owner_) ERC20("Test USD Coin", "tUSDC") ERC20Permit("Test USD Coin") Ownable(owner_) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
