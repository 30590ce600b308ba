// json_file.h — the one hardened reader for JSON input files (scenario files, conformance cases
// and their recordings, corpus replay) and the one safe way to write an output file. Stateless.
//
// ReadJsonFile refuses, without reading forever and before any value is built too deep:
//   - a path that is not a regular file (a directory, /dev/zero, a FIFO, a socket);
//   - a file over `max_bytes` (default 64 MiB);
//   - nesting deeper than `max_depth` (default 256) — counted in nlohmann's parser callback,
//     which runs before the container is built (the parser itself does not recurse);
//   - a duplicate key in any object (JSON leaves it undefined; nlohmann keeps the last one,
//     so a second "expect" would silently flip a verdict);
//   - text that is not one JSON document.
// Every error is InvalidArgument (NotFound when the file cannot be opened) and reads
//   <path>: <JSON path, e.g. $.actions[3]>: <what is wrong> (expected <what>)
// (a syntax error: "<path>: not valid JSON at <JSON path> (<parser message>)").
//
// WriteFileAtomically writes a temporary file in the same folder and renames it over `path`
// only when everything was written, so a failed or interrupted write never leaves a truncated
// user file. Source: issue 15 ("User files get destroyed", "Every bad input refused").
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace rindle {

struct JsonLimits {
  int64_t max_bytes = int64_t{64} << 20;
  int max_depth = 256;
};

// The bytes of the regular file `path`, at most `max_bytes` of them (else an error).
absl::StatusOr<std::string> ReadInputFile(const std::string& path, int64_t max_bytes);

// Parses `text` (named `origin` in errors) under `limits`.
absl::StatusOr<nlohmann::json> ParseJsonStrict(const std::string& text, const std::string& origin,
                                               const JsonLimits& limits = {});

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path,
                                            const JsonLimits& limits = {});

// Creates an empty temporary file next to `path` (same folder, so the rename is atomic) and
// returns its name — or `path` itself when it exists and is neither a regular file nor a folder
// (/dev/null, a FIFO: written in place, never renamed over). Errors name `path` ("cannot open for
// writing").
absl::StatusOr<std::string> CreateTempFileFor(const std::string& path);
// Renames `temp` over `path` (nothing when they are the same: a special file); on failure
// removes `temp`. Errors name `path`.
absl::Status CommitTempFile(const std::string& temp, const std::string& path);
// Removes `temp` unless it is `path` itself (a special file is never removed).
void DiscardTempFile(const std::string& temp, const std::string& path);
absl::Status WriteFileAtomically(const std::string& path, const std::string& contents);

// True when both paths exist and name the same file (device and inode).
bool SameExistingFile(const std::string& a, const std::string& b);

}  // namespace rindle
