// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

interface IWithdraw {
    function withdraw(address party) external returns (uint256);
}

/// @title Malicious settlement token for tests: when the armed vault sends tokens, it calls back into
/// the vault's withdraw before the transfer completes, and records how that call ended.
contract ReentrantToken is ERC20 {
    address public target;
    address public party;
    uint256 public attempts;
    bytes public lastError;
    bool public reentrySucceeded;

    constructor() ERC20("Reentrant USD", "rUSD") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function arm(address vault, address party_) external {
        target = vault;
        party = party_;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from == target && target != address(0)) {
            address vault = target;
            target = address(0); // one attempt per arming, so the call cannot recurse forever
            attempts += 1;
            try IWithdraw(vault).withdraw(party) {
                reentrySucceeded = true;
            } catch (bytes memory reason) {
                lastError = reason;
            }
        }
        super._update(from, to, value);
    }
}
