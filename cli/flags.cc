// flags.cc — see flags.h.
#include "cli/flags.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/json_file.h"

namespace rindle::sim::cli {
namespace {

absl::Status Bad(const std::string& flag, const std::string& expected, const std::string& got) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, ": expected ", expected, ", got \"", got, "\""));
}

// Strict decimal digits only (absl::SimpleAtoi accepts '+' and surrounding whitespace).
bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ToUint64(const std::string& s, uint64_t* out) {
  return AllDigits(s) && absl::SimpleAtoi(s, out);
}

}  // namespace

std::optional<std::string> ParsedArgs::get(const std::string& name) const {
  auto it = flags.find(name);
  if (it == flags.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args, const FlagSpec& spec) {
  ParsedArgs out;
  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags_done || arg.empty() || arg[0] != '-' || arg == "-") {
      out.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      out.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option \"", arg, "\" (flags are spelled --name; see --help)"));
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (out.flags.count(name) > 0) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, ": given more than once"));
    }
    if (spec.switches.count(name) > 0) {
      if (value) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, ": is a switch and takes no value, got \"", *value, "\""));
      }
      out.flags[name] = "";
    } else if (spec.valued.count(name) > 0) {
      if (!value) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat("--", name, ": missing value"));
        }
        value = args[++i];
      }
      out.flags[name] = *value;
    } else {
      std::string known;
      for (const auto* names : {&spec.valued, &spec.switches}) {
        for (const auto& f : *names) absl::StrAppend(&known, known.empty() ? "" : ", ", "--", f);
      }
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name, " (known: ",
                                                     known.empty() ? "none" : known,
                                                     ", --help)"));
    }
  }
  return out;
}

absl::StatusOr<SeedRange> ParseSeedRange(const std::string& flag, const std::string& text) {
  const std::string kExpected =
      "A..B with unsigned integers A <= B (e.g. --seeds 1..200), or a single seed N";
  SeedRange r;
  size_t dots = text.find("..");
  if (dots == std::string::npos) {
    if (!ToUint64(text, &r.first)) return Bad(flag, kExpected, text);
    r.last = r.first;
    return r;
  }
  const std::string a = text.substr(0, dots);
  const std::string b = text.substr(dots + 2);
  if (!ToUint64(a, &r.first) || !ToUint64(b, &r.last)) return Bad(flag, kExpected, text);
  if (r.first > r.last) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag,
                                                   ": expected A..B with A <= B, got \"", text,
                                                   "\" (", r.first, " > ", r.last, ")"));
  }
  return r;
}

absl::StatusOr<uint64_t> ParseUint64(const std::string& flag, const std::string& text) {
  uint64_t v = 0;
  if (!ToUint64(text, &v)) return Bad(flag, "an unsigned integer", text);
  return v;
}

absl::StatusOr<int64_t> ParseIntInRange(const std::string& flag, const std::string& text,
                                        int64_t min, int64_t max) {
  std::string digits = text;
  if (!digits.empty() && digits[0] == '-') digits.erase(0, 1);
  int64_t v = 0;
  if (!AllDigits(digits) || !absl::SimpleAtoi(text, &v) || v < min ||
      v > max) {
    std::string expected = max == std::numeric_limits<int64_t>::max()
                               ? absl::StrCat("an integer >= ", min)
                               : absl::StrCat("an integer from ", min, " to ", max);
    return Bad(flag, expected, text);
  }
  return v;
}

absl::StatusOr<Shard> ParseShard(const std::string& flag, const std::string& text) {
  const std::string kExpected =
      "I/N with 0 <= I < N (0-based shard index of N shards, e.g. --shard 0/4)";
  std::vector<std::string> parts = absl::StrSplit(text, '/');
  Shard s;
  if (parts.size() != 2 || !ToUint64(parts[0], &s.index) || !ToUint64(parts[1], &s.count) ||
      s.count == 0 || s.index >= s.count) {
    return Bad(flag, kExpected, text);
  }
  return s;
}

absl::StatusOr<int64_t> ParseDurationMs(const std::string& flag, const std::string& text) {
  const std::string kExpected =
      "a duration: seconds with an optional unit s, m or h (e.g. 90, 90s, 15m, 2h)";
  std::string num = text;
  int64_t unit_ms = 1000;
  if (!num.empty()) {
    switch (num.back()) {
      case 's': unit_ms = 1000; num.pop_back(); break;
      case 'm': unit_ms = 60 * 1000; num.pop_back(); break;
      case 'h': unit_ms = 3600 * 1000; num.pop_back(); break;
      default: break;
    }
  }
  uint64_t v = 0;
  if (!ToUint64(num, &v) || v == 0 ||
      v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / unit_ms)) {
    return Bad(flag, kExpected, text);
  }
  return static_cast<int64_t>(v) * unit_ms;
}

absl::StatusOr<uint32_t> ParseFractionPerMillion(const std::string& flag, const std::string& text) {
  const std::string kExpected = "a fraction between 0 and 1 (e.g. 0.05)";
  // Digits, at most one '.', at most 6 decimals: exact in parts per million.
  const size_t dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  uint64_t w = 0;
  uint64_t f = 0;
  if (whole.empty() && frac.empty()) return Bad(flag, kExpected, text);
  if (!whole.empty() && !ToUint64(whole, &w)) return Bad(flag, kExpected, text);
  if (dot != std::string::npos && (frac.empty() || frac.size() > 6 || !ToUint64(frac, &f))) {
    return Bad(flag, kExpected, text);
  }
  for (size_t i = frac.size(); i < 6; ++i) f *= 10;
  if (w > 1 || (w == 1 && f > 0)) return Bad(flag, kExpected, text);
  return static_cast<uint32_t>(w * 1000000 + f);
}

absl::StatusOr<bool> ParseOnOff(const std::string& flag, const std::string& text) {
  if (text == "on") return true;
  if (text == "off") return false;
  return absl::InvalidArgumentError("--" + flag + ": expected on or off, got \"" + text + "\"");
}

std::optional<std::string> CheckWritable(const std::string& flag, const std::string& path) {
  if (path.empty()) return "--" + flag + ": expected a file path, got \"\"";
  // Never opens the file: a user's file is replaced (atomically) only after the inputs were read.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return "--" + flag + " \"" + path + "\": is a directory (expected a file path)";
    }
    if (::access(path.c_str(), W_OK) != 0) {
      return "--" + flag + " \"" + path + "\": cannot open for writing: " + std::strerror(errno);
    }
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return "--" + flag + " \"" + path + "\": cannot open for writing: " + std::strerror(errno);
  }
  return std::nullopt;
}

std::optional<std::string> CheckNotInput(const std::string& flag, const std::string& out,
                                         const std::string& input_flag, const std::string& input) {
  if (out == input || rindle::SameExistingFile(out, input)) {
    return "--" + flag + " \"" + out + "\": is the same file as --" + input_flag +
           " (expected a different path: writing it would destroy that file)";
  }
  return std::nullopt;
}

}  // namespace rindle::sim::cli
