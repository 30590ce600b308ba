// flags.h — hand-rolled command-line parsing for the rindle-sim subcommands, and the parsers
// for the value syntaxes they share (seed ranges, shards, durations, counts). Stateless.
//
// Syntax: `--name value` or `--name=value` for valued flags, `--name` for switches; `-h` and
// `--help` anywhere request help; `--` ends flags; anything else not starting with '-' is a
// positional argument. A flag may be given once.
//
// Errors are absl::InvalidArgumentError with a message that names the flag, says what was
// expected and shows what was given, e.g.
//   --seeds: expected A..B with unsigned integers A <= B (e.g. --seeds 1..200), got "5..2"
// The CLI prints them and exits 2 (usage or input error, SPEC §5).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rindle::sim::cli {

struct FlagSpec {
  std::set<std::string> valued;    // names without "--", e.g. "seeds"
  std::set<std::string> switches;  // names without "--", e.g. "quiet"
};

struct ParsedArgs {
  bool help = false;
  std::map<std::string, std::string> flags;  // switches map to ""
  std::vector<std::string> positional;

  bool has(const std::string& name) const { return flags.count(name) > 0; }
  std::optional<std::string> get(const std::string& name) const;
};

// Parses `args` (the arguments after the subcommand name) against `spec`.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args, const FlagSpec& spec);

// Inclusive seed range.
struct SeedRange {
  uint64_t first = 0;
  uint64_t last = 0;
};

// "A..B" (A <= B) or a single "N" (= N..N).
absl::StatusOr<SeedRange> ParseSeedRange(const std::string& flag, const std::string& text);

// An unsigned 64-bit decimal integer.
absl::StatusOr<uint64_t> ParseUint64(const std::string& flag, const std::string& text);

// A decimal integer in [min, max].
absl::StatusOr<int64_t> ParseIntInRange(const std::string& flag, const std::string& text,
                                        int64_t min, int64_t max);

// "I/N" with 0 <= I < N.
struct Shard {
  uint64_t index = 0;
  uint64_t count = 1;
};
absl::StatusOr<Shard> ParseShard(const std::string& flag, const std::string& text);

// A fraction in [0, 1] ("0.05", "0", "1") → parts per million.
absl::StatusOr<uint32_t> ParseFractionPerMillion(const std::string& flag, const std::string& text);

// A wall-clock budget: "90" or "90s", "15m", "2h" → milliseconds (> 0).
absl::StatusOr<int64_t> ParseDurationMs(const std::string& flag, const std::string& text);

// "on" or "off".
absl::StatusOr<bool> ParseOnOff(const std::string& flag, const std::string& text);

// Fails early and clearly if `path` (for --flag) cannot be written: the message to show, or
// nullopt. Never opens, creates or truncates the file (outputs are written to a temporary file
// and renamed into place after the inputs were read).
std::optional<std::string> CheckWritable(const std::string& flag, const std::string& path);

// An output path (--flag) equal to an input path (--input_flag; the same file when it exists):
// the message to show, or nullopt.
std::optional<std::string> CheckNotInput(const std::string& flag, const std::string& out,
                                         const std::string& input_flag, const std::string& input);

}  // namespace rindle::sim::cli
