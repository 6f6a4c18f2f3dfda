#include "file_access.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/text.h"

namespace blis::cli {

namespace fs = std::filesystem;

namespace {

std::string mib(std::uintmax_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// True when `p` (absolute, normal) is `dir` or below it.
bool is_within(const fs::path& p, const fs::path& dir) {
  auto pi = p.begin();
  for (auto di = dir.begin(); di != dir.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> read_regular_file(const fs::path& path, std::uintmax_t max_bytes,
                                             std::string* error) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) != 0) {
    *error = std::strerror(errno);
  } else if (S_ISDIR(st.st_mode)) {
    *error = "a directory";
  } else if (!S_ISREG(st.st_mode)) {
    *error = "not a regular file (a device, FIFO or socket is never read)";
  } else if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
    *error = std::to_string(st.st_size) + " bytes, above the " + mib(max_bytes) + " limit";
  } else {
    std::string text;
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    bool failed = false;
    // The file may change while it is read: never read past the size checked above.
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        *error = std::strerror(errno);
        failed = true;
        break;
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (!failed) {
      text.resize(got);
      out = std::move(text);
    }
  }
  ::close(fd);
  return out;
}

std::optional<std::string> read_named_file(const char* command, const fs::path& path,
                                           std::uintmax_t max_bytes) {
  std::string error;
  auto text = read_regular_file(path, max_bytes, &error);
  if (!text) {
    std::fprintf(stderr, "%s: cannot read %s: %s\n", command,
                 quote_excerpt(path.string(), 200).c_str(), error.c_str());
  }
  return text;
}

std::function<std::optional<std::string>(const std::string&, std::string*)> scenario_file_reader(
    const fs::path& scenario_path, bool anywhere) {
  std::error_code ec;
  fs::path base = fs::absolute(scenario_path, ec).parent_path();
  return
      [base, anywhere](const std::string& name, std::string* error) -> std::optional<std::string> {
        if (name.find('\0') != std::string::npos) {
          *error = "a path with a NUL byte";
          return std::nullopt;
        }
        const fs::path given(name);
        if (given.is_absolute() && !anywhere) {
          *error =
              "an absolute path; a scenario reads files only inside its own folder "
              "(--read-anywhere lifts this)";
          return std::nullopt;
        }
        const fs::path p = given.is_absolute() ? given : base / given;
        if (!anywhere) {
          // Resolve symbolic links and "..", then compare with the folder, resolved the same way.
          std::error_code e1, e2;
          const fs::path real = fs::weakly_canonical(p, e1);
          const fs::path real_base = fs::weakly_canonical(base, e2);
          if (e1 || e2 || !is_within(real, real_base)) {
            *error =
                "outside the scenario's folder; a scenario reads files only inside it "
                "(--read-anywhere lifts this)";
            return std::nullopt;
          }
        }
        return read_regular_file(p, kMaxNamedFileBytes, error);
      };
}

}  // namespace blis::cli
