#pragma once
// Reading the files a command line names, and the files a scenario names (a trace's `path`).
// A scenario may come from a stranger, so what it names is read only when it is a regular
// file (never a device such as /dev/zero, a FIFO that would block, or a directory), not larger
// than a cap, and by default inside the scenario's own folder (after resolving symbolic
// links). docs/reliability.md lists the limits.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace blis::cli {

// The largest scenario document a command reads.
inline constexpr std::uintmax_t kMaxScenarioBytes = 16u << 20;  // 16 MiB
// The largest file a scenario may name (a trace CSV).
inline constexpr std::uintmax_t kMaxNamedFileBytes = 256u << 20;  // 256 MiB

// The text of `path` when it is a regular file of at most `max_bytes`; else nullopt with
// *error set to a short reason ("not a regular file ...", "N bytes, above the ... limit",
// strerror's text).
std::optional<std::string> read_regular_file(const std::filesystem::path& path,
                                             std::uintmax_t max_bytes, std::string* error);

// A file the command line names, read for `command` ("blis run"): read_regular_file, else
// nullopt after "COMMAND: cannot read "PATH": REASON" on stderr.
std::optional<std::string> read_named_file(const char* command, const std::filesystem::path& path,
                                           std::uintmax_t max_bytes = kMaxScenarioBytes);

// The reader DecodeOptions::read_file takes for a scenario read from `scenario_path`: a
// relative path is resolved against the scenario's folder; unless `anywhere`, an absolute path
// or one that leads outside that folder is refused.
std::function<std::optional<std::string>(const std::string& path, std::string* error)>
scenario_file_reader(const std::filesystem::path& scenario_path, bool anywhere);

}  // namespace blis::cli
