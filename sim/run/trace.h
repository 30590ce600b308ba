// trace.h — the run's canonical trace: one JSON object per line, an incremental XXH3-64 digest
// over every line, an optional JSON-lines file, and the last few lines kept for failure
// reports. Holds state (digest, line count, ring of recent lines, open file).
//
// Canonical form: a line is `json.dump()` of an nlohmann::json object. nlohmann's default
// object type is a std::map, so keys are sorted and the serialization of a given value is
// fixed; invalid UTF-8 in strings is replaced (U+FFFD) rather than thrown. Callers must only put
// deterministic data in a line: virtual time, ids, values — never wall-clock time, pointers or
// unordered-container iteration order.
//
// Digest: XXH3-64 (seed 0) over the concatenation of every canonical line followed by '\n',
// printed as 16 lowercase hex digits. Two runs of the same seed must produce the same digest
// (SPEC §4 property 6); when they do not, FirstDifference() over their retained lines names the
// first differing line. Data (seed rows, applied rows, view contents) enters canonical lines as
// hashes (trace_hash.h), so a changed value changes the digest.
//
// Readable detail: Add(event, detail) writes the line to the FILE with an extra "detail" member
// (rows as table / pk / columns, for a user reading the trace); the digest and the retained
// lines never see it. So the file's lines are the canonical lines plus "detail" members:
// CanonicalLine(file_line) removes it again, and the digest of a file's canonical lines equals
// the run's digest — writing a trace file never changes a digest. Build a detail only when
// writes_file() (it costs a JSON value per row).
//
// Errors: OpenFile() returns a Status naming the path when the file cannot be created; a write
// error on the file afterwards is remembered and reported by file_status() (the digest is
// unaffected).
//
// Example:
//   Trace trace;                                   // keeps the last 64 lines
//   trace.Add({{"t", now_ms}, {"ev", "push"}, {"client", 2}, {"mid", 7}});
//   std::string digest = trace.DigestHex();       // e.g. "5d0f2c3b9e8a7764"
#pragma once

#include <cstddef>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace rindle::sim {

class Trace {
 public:
  // Keeps the last `keep_last` lines in memory (kKeepAll keeps every line).
  static constexpr size_t kKeepAll = static_cast<size_t>(-1);
  explicit Trace(size_t keep_last = 64);
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  // Starts writing every subsequent line to `path` (truncated), one line each, flushed.
  absl::Status OpenFile(const std::string& path);

  // Appends `event.dump()` as one line. Returns the line.
  const std::string& Add(const nlohmann::json& event);
  // The same line; the file (only) gets `event` plus {"detail": detail} (see above).
  const std::string& Add(const nlohmann::json& event, const nlohmann::json& detail);

  // Whether a trace file is open (a detail would be written).
  bool writes_file() const { return file_ != nullptr; }

  // Appends an already-serialized line (must not contain '\n'; CHECKed).
  void AddLine(std::string_view line);

  // XXH3-64 of every line so far (each followed by '\n'), 16 lowercase hex digits.
  std::string DigestHex() const;
  uint64_t Digest() const;

  // Number of lines added.
  size_t lines() const { return lines_; }

  // The retained lines, oldest first: the last min(lines(), keep_last) lines.
  std::vector<std::string> Recent() const;

  // Index (0-based, over all lines) of the first retained line.
  size_t first_retained_index() const { return lines_ - recent_.size(); }

  // Compares this trace's retained lines with `other`, the full line list of another run of
  // the same seed (index 0 = that run's first line). Returns "" when no difference is visible,
  // else a one-paragraph description: the index of the first differing line and both lines.
  std::string FirstDifference(const std::vector<std::string>& other) const;

  // OK unless a write to the trace file failed.
  const absl::Status& file_status() const { return file_status_; }

 private:
  struct StateDeleter {
    void operator()(void* state) const;
  };

  void Record(std::string_view line);  // digest, count, ring
  void WriteFileLine(std::string_view line);

  size_t keep_last_;
  size_t lines_ = 0;
  std::unique_ptr<void, StateDeleter> state_;  // XXH3_state_t*
  std::deque<std::string> recent_;
  std::string last_line_;
  std::FILE* file_ = nullptr;
  std::string file_path_;
  absl::Status file_status_;
};

// The canonical line of a trace-file line: the line with its "detail" member removed (as
// Trace::Add dumps it); a line without one, or not a JSON object, is returned unchanged.
std::string CanonicalLine(const std::string& file_line);

// Compares two line lists; returns "" when equal, else a description of the first difference
// ("line 12 differs: expected <a> got <b>", or which list ended early). `expected_first_index`
// and `actual_first_index` give the absolute index of each list's first element.
std::string FirstDifference(const std::vector<std::string>& expected,
                            const std::vector<std::string>& actual,
                            size_t expected_first_index = 0, size_t actual_first_index = 0);

}  // namespace rindle::sim
