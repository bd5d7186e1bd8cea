// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice A set of ids with O(1) add/remove, so each strategy can list the ids the keeper may need to
/// work on (`openOrderIds()`, `openGridIds()`, `openLadderIds()`) without scanning history.
library OpenIds {
    struct Set {
        uint256[] ids;
        mapping(uint256 => uint256) slot; // index + 1; 0 = absent
    }

    function add(Set storage s, uint256 id) internal {
        if (s.slot[id] != 0) return;
        s.ids.push(id);
        s.slot[id] = s.ids.length;
    }

    function remove(Set storage s, uint256 id) internal {
        uint256 slot = s.slot[id];
        if (slot == 0) return;
        // Swap-and-pop: order is not kept, which the keeper does not need.
        uint256 last = s.ids[s.ids.length - 1];
        s.ids[slot - 1] = last;
        s.slot[last] = slot;
        s.ids.pop();
        delete s.slot[id];
    }
}
