#pragma once
// Tables that the 0.29.x, 0.31.0 and 0.32.0 packs hold in common, each with where it was
// read. The index of vLLM's source pins files to commits, not to release tags; where a
// third-party text pins a value to a release tag, that is cited instead. docs/rules.md
// lists the provenance of every table.

#include "rules/pack.h"

namespace blis::rules::packs {

// Fills every table a pack of the 0.29-0.32 line shares; the pack then sets its release
// name, its `accepts` list and what differs.
Pack shared_v029_to_v032();

}  // namespace blis::rules::packs
