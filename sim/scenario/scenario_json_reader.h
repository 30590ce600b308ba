// scenario_json_reader.h — the field-path error helpers the scenario loader's readers share:
// ObjectReader reads one JSON object's fields, naming the JSON path (e.g. "actions[3].client")
// in every error and rejecting unknown keys; FieldError builds the one error shape
//   <origin>: field "<path>": expected <what>[, got <value>]
// Holds no state beyond a reference to the object being read (which must outlive the reader).
// Errors: InvalidArgument only. Source: SPEC §6 (scenario files; unknown fields are typos).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace rindle::sim {

inline constexpr int64_t kMaxScenarioMs = int64_t{1} << 40;  // any time or duration, virtual ms
inline constexpr int kMaxScenarioClients = 8;

// A short rendering of a JSON value for error messages (at most 60 characters).
std::string ShowJson(const nlohmann::json& v);

absl::Status FieldError(const std::string& origin, const std::string& field,
                        const std::string& expected, const nlohmann::json* got);

// Reads the fields of one JSON object, naming `path` in every error and rejecting unknown keys.
class ObjectReader {
 public:
  using json = nlohmann::json;
  ObjectReader(const std::string& origin, std::string path, const json& obj)
      : origin_(origin), path_(std::move(path)), obj_(obj) {}

  // The object is an object and holds only keys of `known`.
  absl::Status CheckObject(const std::vector<std::string>& known) const;
  // The JSON path of `key` inside the object.
  std::string Field(const std::string& key) const;
  const json* Find(const std::string& key) const;
  absl::StatusOr<const json*> Require(const std::string& key, const std::string& expected) const;
  absl::StatusOr<int64_t> Int(const std::string& key, int64_t lo, int64_t hi) const;
  absl::StatusOr<int64_t> IntValue(const json& v, const std::string& field, int64_t lo,
                                   int64_t hi) const;
  absl::StatusOr<std::string> String(const std::string& key, bool non_empty) const;

 private:
  const std::string& origin_;
  std::string path_;
  const json& obj_;
};

// `lhs = *expr` or return expr's error (expr is a StatusOr).
#define SCN_ASSIGN(lhs, expr)               \
  do {                                      \
    auto scn_v = (expr);                    \
    if (!scn_v.ok()) return scn_v.status(); \
    lhs = *std::move(scn_v);                \
  } while (0)

}  // namespace rindle::sim
