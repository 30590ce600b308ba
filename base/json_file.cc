// json_file.cc — see json_file.h.
#include "base/json_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"

namespace rindle {
namespace {

using json = nlohmann::json;

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string LimitText(int64_t bytes) {
  if (bytes % (int64_t{1} << 20) == 0) return absl::StrCat(bytes >> 20, " MiB");
  return absl::StrCat(bytes, " bytes");
}

// Where the parser is: one frame per open container.
struct Frame {
  bool array = false;
  size_t index = 0;          // arrays: the element being read
  std::string key;           // objects: the key being read
  std::set<std::string> keys;
};

bool PlainKey(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// "$", then [i] or .key per frame; long paths keep their ends.
std::string PathOf(const std::vector<Frame>& frames) {
  std::string out = "$";
  for (const Frame& f : frames) {
    if (f.array) {
      absl::StrAppend(&out, "[", f.index, "]");
    } else if (!f.key.empty() || !f.keys.empty()) {
      absl::StrAppend(&out, PlainKey(f.key) ? absl::StrCat(".", f.key)
                                            : absl::StrCat("[", json(f.key).dump(), "]"));
    }
  }
  if (out.size() > 120) out = absl::StrCat(out.substr(0, 60), "...", out.substr(out.size() - 50));
  return out;
}

struct StrictError {
  std::string message;
};

// The parser callback: depth limit, duplicate keys, and the path for every error.
class Tracker {
 public:
  explicit Tracker(int max_depth) : max_depth_(max_depth) {}
  const std::vector<Frame>& frames() const { return frames_; }

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (static_cast<int>(frames_.size()) >= max_depth_) {
          throw StrictError{absl::StrCat(PathOf(frames_), ": nested deeper than ", max_depth_,
                                         " levels (expected at most ", max_depth_,
                                         " nested arrays/objects)")};
        }
        frames_.push_back(Frame{event == json::parse_event_t::array_start, 0, "", {}});
        break;
      case json::parse_event_t::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) {
          throw StrictError{absl::StrCat(PathOf(frames_), ": duplicate key ", json(top.key).dump(),
                                         " (expected each key at most once per object)")};
        }
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        Advance();
        break;
      case json::parse_event_t::value:
        Advance();
        break;
    }
    return true;
  }

 private:
  void Advance() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  int max_depth_;
  std::vector<Frame> frames_;
};

}  // namespace

absl::StatusOr<std::string> ReadInputFile(const std::string& path, int64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat refuses it right after.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open (", std::strerror(errno), ")"));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string kind = FileKind(st.st_mode);
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is ", kind, " (expected a regular JSON file)"));
  }
  if (st.st_size > max_bytes) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", st.st_size, " bytes (expected at most ",
                                                   LimitText(max_bytes), " for an input file)"));
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return absl::DataLossError(absl::StrCat(path, ": read error (", std::strerror(err), ")"));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (static_cast<int64_t>(text.size()) > max_bytes) {  // the file grew while we read it
      ::close(fd);
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": over ", LimitText(max_bytes), " (expected at most that for an input file)"));
    }
  }
  ::close(fd);
  return text;
}

absl::StatusOr<json> ParseJsonStrict(const std::string& text, const std::string& origin,
                                     const JsonLimits& limits) {
  Tracker tracker(limits.max_depth);
  try {
    json::parser_callback_t cb = [&tracker](int depth, json::parse_event_t event, json& parsed) {
      return tracker(depth, event, parsed);
    };
    return json::parse(text, cb);
  } catch (const StrictError& e) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": ", e.message));
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": not valid JSON at ",
                                                   PathOf(tracker.frames()), " (", e.what(), ")"));
  }
}

absl::StatusOr<json> ReadJsonFile(const std::string& path, const JsonLimits& limits) {
  absl::StatusOr<std::string> text = ReadInputFile(path, limits.max_bytes);
  if (!text.ok()) return text.status();
  return ParseJsonStrict(*text, path, limits);
}

bool IsSpecialFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

absl::StatusOr<std::string> CreateTempFileFor(const std::string& path) {
  // /dev/null, /dev/stdout, a FIFO: written in place. A rename over it would replace the device
  // node with a regular file (as root it succeeds: `--trace /dev/null` broke /dev/null).
  if (IsSpecialFile(path)) return path;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string temp = absl::StrCat(dir, ".", base, ".tmp-XXXXXX");
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot open for writing (", std::strerror(errno), ")"));
  }
  // mkstemp makes 0600; the output gets the mode the user's file had, else the umask's default.
  struct stat st {};
  mode_t mode = 0;
  if (::stat(path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  (void)::fchmod(fd, mode);
  ::close(fd);
  return temp;
}

void DiscardTempFile(const std::string& temp, const std::string& path) {
  if (temp != path) std::remove(temp.c_str());
}

absl::Status CommitTempFile(const std::string& temp, const std::string& path) {
  if (temp == path) return absl::OkStatus();  // a special file, written in place
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot move the written file into place (", std::strerror(err), ")"));
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  absl::StatusOr<std::string> made = CreateTempFileFor(path);
  if (!made.ok()) return made.status();
  const std::string temp = *made;
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (f == nullptr) {
    DiscardTempFile(temp, path);
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot open for writing (", std::strerror(errno), ")"));
  }
  const bool wrote = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) {
    DiscardTempFile(temp, path);
    return absl::DataLossError(absl::StrCat(path, ": write failed"));
  }
  return CommitTempFile(temp, path);
}

bool SameExistingFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace rindle
