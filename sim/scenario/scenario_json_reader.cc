// scenario_json_reader.cc — see scenario_json_reader.h.
#include "sim/scenario/scenario_json_reader.h"

#include <climits>

#include "absl/strings/str_join.h"
#include "base/str_util.h"

namespace rindle::sim {

using json = nlohmann::json;

std::string ShowJson(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = StrCat(s.substr(0, 57), "...");
  return s;
}

absl::Status FieldError(const std::string& origin, const std::string& field,
                        const std::string& expected, const json* got) {
  std::string msg = StrCat(origin, ": field \"", field, "\": expected ", expected);
  if (got != nullptr) StrAppend(&msg, ", got ", ShowJson(*got));
  return absl::InvalidArgumentError(msg);
}

absl::Status ObjectReader::CheckObject(const std::vector<std::string>& known) const {
  if (!obj_.is_object()) {
    return FieldError(origin_, path_.empty() ? "(document)" : path_, "a JSON object", &obj_);
  }
  for (const auto& [key, value] : obj_.items()) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == key;
    if (!ok) {
      return absl::InvalidArgumentError(
          StrCat(origin_, ": unknown field \"", Field(key), "\" (known fields: ",
                 absl::StrJoin(known, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

std::string ObjectReader::Field(const std::string& key) const {
  return path_.empty() ? key : StrCat(path_, ".", key);
}

const json* ObjectReader::Find(const std::string& key) const {
  auto it = obj_.find(key);
  return it == obj_.end() ? nullptr : &*it;
}

absl::StatusOr<const json*> ObjectReader::Require(const std::string& key, const std::string& expected) const {
  const json* v = Find(key);
  if (v == nullptr) return FieldError(origin_, Field(key), StrCat(expected, " (missing)"), nullptr);
  return v;
}

absl::StatusOr<int64_t> ObjectReader::Int(const std::string& key, int64_t lo, int64_t hi) const {
  const std::string expected = StrCat("an integer in [", lo, ", ", hi, "]");
  auto v = Require(key, expected);
  if (!v.ok()) return v.status();
  return IntValue(**v, Field(key), lo, hi);
}

absl::StatusOr<int64_t> ObjectReader::IntValue(const json& v, const std::string& field, int64_t lo,
                                               int64_t hi) const {
  const std::string expected = StrCat("an integer in [", lo, ", ", hi, "]");
  if (!v.is_number_integer()) return FieldError(origin_, field, expected, &v);
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return FieldError(origin_, field, expected, &v);
  }
  const int64_t i = v.get<int64_t>();
  if (i < lo || i > hi) return FieldError(origin_, field, expected, &v);
  return i;
}

absl::StatusOr<std::string> ObjectReader::String(const std::string& key, bool non_empty) const {
  const std::string expected = non_empty ? "a non-empty string" : "a string";
  auto v = Require(key, expected);
  if (!v.ok()) return v.status();
  if (!(*v)->is_string() || (non_empty && (*v)->get<std::string>().empty())) {
    return FieldError(origin_, Field(key), expected, *v);
  }
  return (*v)->get<std::string>();
}

}  // namespace rindle::sim
