#pragma once
// The iteration order of a Python set of str, as CPython 3.11 gives it with PYTHONHASHSEED=0
// (the interpreter and seed the oracle traces were made with; see their provenance.python).
//
// vLLM iterates sets where the order changes a decision: the scheduler frees the blocks of
// KVConnectorOutput.finished_sending / finished_recving in set order
// (scheduler.py Scheduler._update_from_kv_xfer_finished), and the OffloadingConnector issues
// the stores of SchedulerOutput.finished_req_ids in set order (offloading/scheduler.py
// _build_store_jobs). With a fixed seed that order is a pure function of the ids and their
// insertion order, reproduced here: str hashing (Python/pyhash.c siphash13 with the zero key
// PYTHONHASHSEED=0 selects) and the open-addressing table of Objects/setobject.c
// (set_add_entry, set_table_resize, set_insert_clean; no removals). Deterministic, no I/O.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace blis::pyset {

// hash(s) in CPython 3.11 with PYTHONHASHSEED=0: siphash13 over the string's PEP 393 storage
// (1, 2 or 4 bytes per code point by the widest one; `s` is UTF-8), 0 for "", -1 mapped to -2.
std::int64_t str_hash(std::string_view s);

// hash(b) of a Python bytes object (the same siphash13 over its bytes; 0 when empty).
std::int64_t bytes_hash(const std::uint8_t* data, std::size_t n);

// For distinct elements with these hashes, added in this order: the order `for x in s`
// visits them, as indices into `hashes`.
std::vector<std::size_t> set_order_of_hashes(const std::vector<std::int64_t>& hashes);

// The elements of `s = set(); s.add(x) for x in ids` in `for x in s` order (duplicates kept
// once, at their first insertion).
std::vector<std::string> set_order(const std::vector<std::string>& ids);

// The permutation set_order applies: result[i] is the index in `ids` of the i-th element
// iterated (first occurrence of each distinct id).
std::vector<std::size_t> set_order_indices(const std::vector<std::string>& ids);

}  // namespace blis::pyset
