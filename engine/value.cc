#include "base/str_util.h"
#include "engine/value.h"

#include <cmath>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace rindle {

Value Value::Number(double d) {
  if (std::isfinite(d) && d == std::floor(d) && d >= -9.2233720368547758e18 &&
      d < 9.2233720368547758e18) {
    return Int(static_cast<int64_t>(d));
  }
  Value v;
  v.tag_ = Tag(Kind::kDouble);
  v.double_ = d;
  return v;
}

double Value::as_double() const {
  if (kind() == Kind::kInt) return static_cast<double>(int_);
  Expect(Kind::kDouble);
  return double_;
}

void Value::BadAccess(Kind wanted) const {
  internal::CheckFail(__FILE__, __LINE__,
                      StrCat("Value of kind ", static_cast<int>(kind()), " read as kind ",
                             static_cast<int>(wanted), ": ", DebugString()));
}

absl::StatusOr<Value> Value::FromJson(const nlohmann::json& j, std::string_view what) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return Value::Null();
    case nlohmann::json::value_t::boolean: return Value::Bool(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return Value::Int(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      uint64_t u = j.get<uint64_t>();
      if (u > static_cast<uint64_t>(INT64_MAX)) return Value::Number(static_cast<double>(u));
      return Value::Int(static_cast<int64_t>(u));
    }
    case nlohmann::json::value_t::number_float: {
      double d = j.get<double>();
      if (!std::isfinite(d)) {
        return absl::InvalidArgumentError(StrCat(what, ": expected a finite number"));
      }
      return Value::Number(d);
    }
    case nlohmann::json::value_t::string: return Value::String(j.get<std::string>());
    default:
      return absl::InvalidArgumentError(StrCat(
          what, ": expected null, a boolean, a number or a string, got ", j.type_name()));
  }
}

nlohmann::json Value::ToJson() const {
  switch (kind()) {
    case Kind::kNull: return nullptr;
    case Kind::kBool: return as_bool();
    case Kind::kInt: return as_int();
    case Kind::kDouble: return double_;
    case Kind::kString: return as_string();
  }
  return nullptr;
}

std::string Value::DebugString() const { return ToJson().dump(); }

namespace {
int KindRank(Value::Kind k) {
  switch (k) {
    case Value::Kind::kNull: return 0;
    case Value::Kind::kBool: return 1;
    case Value::Kind::kInt:
    case Value::Kind::kDouble: return 2;
    case Value::Kind::kString: return 3;
  }
  return 4;
}
}  // namespace

int CompareValuesSlow(const Value& a, const Value& b) {
  const int ra = KindRank(a.kind()), rb = KindRank(b.kind());
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a.kind()) {
    case Value::Kind::kNull: return 0;
    case Value::Kind::kBool: return static_cast<int>(a.as_bool()) - static_cast<int>(b.as_bool());
    case Value::Kind::kInt:
    case Value::Kind::kDouble: {
      if (a.kind() == Value::Kind::kInt && b.kind() == Value::Kind::kInt) {
        return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
      }
      const double x = a.as_double(), y = b.as_double();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    case Value::Kind::kString: {
      if (a.SameString(b)) return 0;  // interned: equal text is the same pooled copy
      const int c = a.as_string().compare(b.as_string());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
  }
  return 0;
}

bool ComparableKinds(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return true;
  return KindRank(a.kind()) == KindRank(b.kind());
}

int CompareRowValues(const RowValues& a, const RowValues& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const int c = CompareValues(a[i], b[i]);
    if (c != 0) return c;
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

nlohmann::json RowToJson(const RowValues& row) {
  nlohmann::json out = nlohmann::json::array();
  for (const Value& v : row) out.push_back(v.ToJson());
  return out;
}

absl::StatusOr<RowValues> RowFromJson(const nlohmann::json& j, std::string_view what) {
  if (!j.is_array()) {
    return absl::InvalidArgumentError(StrCat(what, ": expected an array of cells"));
  }
  RowValues row;
  row.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    auto v = Value::FromJson(j[i], StrCat(what, "[", i, "]"));
    if (!v.ok()) return v.status();
    row.push_back(std::move(*v));
  }
  return row;
}

std::string RowDebugString(const RowValues& row) { return RowToJson(row).dump(); }

std::ostream& operator<<(std::ostream& os, const Value& v) { return os << v.DebugString(); }

}  // namespace rindle
