#pragma once
// User text in messages and output files. Scenario documents come from strangers, so every
// string the program echoes back (ids, names, CSV cells, file paths) goes through excerpt():
// bounded in length and escaped, so a megabyte id, a newline that would forge a second
// diagnostic line, or an ANSI escape sequence reaches the terminal as inert text.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace blis {

// Bytes of user text one message echoes at most (before escaping).
inline constexpr std::size_t kMaxEcho = 60;

// `s` as it appears in a message: at most `max_bytes` bytes of it (cut on a UTF-8 character
// boundary, "..." appended when cut), with backslash, double quote, control characters
// (C0, DEL) and invalid UTF-8 escaped as \\, \", \n, \t, \r, \xNN. Never contains a raw
// control character, whatever `s` holds.
std::string escape_excerpt(std::string_view s, std::size_t max_bytes = kMaxEcho);

// escape_excerpt() in double quotes: "\"abc\"".
std::string quote_excerpt(std::string_view s, std::size_t max_bytes = kMaxEcho);

// A line built from pieces that were escaped already (a diagnostic): left as it is, except that
// any raw control character or invalid UTF-8 byte still in it becomes \xNN and it is cut at
// `max_bytes` (with "..."). The last line of defence before a terminal.
std::string sanitize_line(std::string_view s, std::size_t max_bytes);

// Names that become file names (a pool's name is its instances' metrics/<pool>-<i>.prom).
inline constexpr std::size_t kMaxFileNameComponent = 64;

// Why `name` cannot be one path component of an output file, or nullopt when it can: 1 to
// `max_bytes` bytes of [A-Za-z0-9._-], starting with a letter or a digit (so never "", ".",
// "..", an absolute path, a hidden file or an option-looking "-x").
std::optional<std::string> file_name_problem(std::string_view name,
                                             std::size_t max_bytes = kMaxFileNameComponent);

// Names that are echoed and written into files but are not file names (a client's name is a
// requests.csv cell): why `name` is not 1 to kMaxLabel bytes without control characters.
inline constexpr std::size_t kMaxLabel = 128;
std::optional<std::string> label_problem(std::string_view name);

// One CSV field (RFC 4180): as is when it holds no comma, quote, CR or LF; else quoted, with
// quotes doubled.
std::string csv_field(std::string_view s);

}  // namespace blis
