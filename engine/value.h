// value.h — the cell type of every row: null, bool, int64, double or string (json columns travel
// as strings). Stateless value type.
//
// Numbers: a double holding an integral value in int64 range is normalized to int64 at
// construction (Value::Number), so 3 and 3.0 are the same value, hash the same and print as `3`.
// NaN and infinities are rejected by FromJson. Ordering (SPEC §2.1): null sorts before every
// non-null value; numbers compare numerically across int/double; strings compare by bytes (UTF-8);
// false < true. Comparing different non-numeric kinds is a schema error: callers that can meet it
// (query validation, row checks) reject it up front; Compare() itself falls back to a fixed kind
// rank so that indexes stay totally ordered even then.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace rindle {

class Value {
 public:
  enum class Kind : uint8_t { kNull = 0, kBool = 1, kInt = 2, kDouble = 3, kString = 4 };

  Value() = default;  // null
  static Value Null() { return Value(); }
  static Value Bool(bool b) { Value v; v.rep_ = b; return v; }
  static Value Int(int64_t i) { Value v; v.rep_ = i; return v; }
  // Normalizes an integral double in int64 range to Int.
  static Value Number(double d);
  static Value String(std::string s) { Value v; v.rep_ = std::move(s); return v; }

  Kind kind() const { return static_cast<Kind>(rep_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_number() const { return kind() == Kind::kInt || kind() == Kind::kDouble; }
  bool is_string() const { return kind() == Kind::kString; }

  bool as_bool() const { return std::get<bool>(rep_); }
  int64_t as_int() const { return std::get<int64_t>(rep_); }
  double as_double() const;  // int or double
  const std::string& as_string() const { return std::get<std::string>(rep_); }

  // JSON <-> Value. FromJson accepts null, bool, numbers (finite) and strings; anything else is
  // InvalidArgument naming `what` (e.g. "$.where.right.value").
  static absl::StatusOr<Value> FromJson(const nlohmann::json& j, std::string_view what = "value");
  nlohmann::json ToJson() const;
  // Compact human form: null, true, 3, 2.5, "text".
  std::string DebugString() const;

  template <typename H>
  friend H AbslHashValue(H h, const Value& v) {
    switch (v.kind()) {
      case Kind::kNull: return H::combine(std::move(h), 0);
      case Kind::kBool: return H::combine(std::move(h), 1, v.as_bool());
      case Kind::kInt: return H::combine(std::move(h), 2, v.as_int());
      case Kind::kDouble: return H::combine(std::move(h), 3, std::get<double>(v.rep_));
      case Kind::kString: return H::combine(std::move(h), 4, v.as_string());
    }
    return h;
  }

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string> rep_;
};

// Total order of SPEC §2.1 (see header comment). Returns <0, 0, >0.
int CompareValues(const Value& a, const Value& b);
inline bool operator==(const Value& a, const Value& b) { return CompareValues(a, b) == 0; }
inline bool operator!=(const Value& a, const Value& b) { return CompareValues(a, b) != 0; }
inline bool operator<(const Value& a, const Value& b) { return CompareValues(a, b) < 0; }
// True when a and b may be compared (same kind, both numbers, or either null).
bool ComparableKinds(const Value& a, const Value& b);

// Positional cells of one row, in the table's column order.
using RowValues = std::vector<Value>;

int CompareRowValues(const RowValues& a, const RowValues& b);  // lexicographic
nlohmann::json RowToJson(const RowValues& row);
absl::StatusOr<RowValues> RowFromJson(const nlohmann::json& j, std::string_view what = "row");
std::string RowDebugString(const RowValues& row);

std::ostream& operator<<(std::ostream& os, const Value& v);

}  // namespace rindle
