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
//
// Representation (issue 16): 16 bytes — an 8-byte payload (bool, int64, double, or a pointer to
// the string's interned copy, string_pool.h) and a tag: the kind, and for a string its first 7
// bytes, so CompareValues decides most string compares without reading the text. Copies of a
// string cell share its text; ordering and hashing are by the text, never by the pointer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "engine/string_pool.h"
#include "nlohmann/json.hpp"

namespace rindle {

class Value {
 public:
  enum class Kind : uint8_t { kNull = 0, kBool = 1, kInt = 2, kDouble = 3, kString = 4 };

  Value() = default;  // null
  Value(const Value& o) : bits_(o.bits_), tag_(o.tag_) {
    if (kind() == Kind::kString) internal::RefString(str_);
  }
  Value(Value&& o) noexcept : bits_(o.bits_), tag_(o.tag_) { o.tag_ = 0; }
  Value& operator=(const Value& o) {
    if (o.kind() == Kind::kString) internal::RefString(o.str_);  // first: o may be *this
    Release();
    bits_ = o.bits_;
    tag_ = o.tag_;
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      Release();
      bits_ = o.bits_;
      tag_ = o.tag_;
      o.tag_ = 0;
    }
    return *this;
  }
  ~Value() { Release(); }

  static Value Null() { return Value(); }
  static Value Bool(bool b) { Value v; v.tag_ = Tag(Kind::kBool); v.bool_ = b; return v; }
  static Value Int(int64_t i) { Value v; v.tag_ = Tag(Kind::kInt); v.int_ = i; return v; }
  // Normalizes an integral double in int64 range to Int.
  static Value Number(double d);
  // Interned (string_pool.h): equal strings share one pooled copy.
  static Value String(std::string s) {
    Value v;
    v.str_ = internal::InternString(std::move(s));
    v.tag_ = StringTag(v.str_->text);
    return v;
  }

  Kind kind() const { return static_cast<Kind>(tag_ & 0xff); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_number() const { return kind() == Kind::kInt || kind() == Kind::kDouble; }
  bool is_string() const { return kind() == Kind::kString; }

  bool as_bool() const { Expect(Kind::kBool); return bool_; }
  int64_t as_int() const { Expect(Kind::kInt); return int_; }
  double as_double() const;  // int or double
  const std::string& as_string() const { Expect(Kind::kString); return str_->text; }
  // A string's first 7 bytes, big-endian and zero-padded — read from the tag, not the text.
  uint64_t string_prefix7() const { Expect(Kind::kString); return tag_ >> 8; }
  // Same pooled copy: for strings, exactly string equality (string_pool.h invariant).
  bool SameString(const Value& o) const { return str_ == o.str_; }

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
      case Kind::kDouble: return H::combine(std::move(h), 3, v.double_);
      case Kind::kString: return H::combine(std::move(h), 4, v.as_string());
    }
    return h;
  }

 private:
  friend int CompareValues(const Value& a, const Value& b);
  static constexpr uint64_t Tag(Kind k) { return static_cast<uint64_t>(k); }
  // The kind, and above it a string's first 7 bytes big-endian (zero-padded): comparing two
  // string tags as integers orders them as their texts whenever the tags differ.
  static uint64_t StringTag(const std::string& s) {
    uint64_t prefix = 0;
    for (size_t i = 0; i < 7; ++i) {
      prefix = (prefix << 8) | (i < s.size() ? static_cast<unsigned char>(s[i]) : 0);
    }
    return (prefix << 8) | Tag(Kind::kString);
  }
  void Release() {
    if (kind() == Kind::kString) internal::UnrefString(str_);
  }
  void Expect(Kind k) const {
    if (kind() != k) BadAccess(k);
  }
  [[noreturn]] void BadAccess(Kind wanted) const;

  // 16 bytes: one 8-byte payload and the tag (the kind in its low byte; for a string, its first
  // 7 bytes above it — issue 16, commit path: most compares of two string cells, e.g. on every
  // step down an index by pk, decide on the tags without reading either text). No cell owns heap
  // memory of its own: a string cell holds one reference to its pooled copy.
  union {
    uint64_t bits_ = 0;
    bool bool_;
    int64_t int_;
    double double_;
    const internal::PooledString* str_;
  };
  uint64_t tag_ = 0;  // kNull
};

// The general case of CompareValues (value.cc).
int CompareValuesSlow(const Value& a, const Value& b);

// Total order of SPEC §2.1 (see header comment). Returns <0, 0, >0. Inline: the hot path of
// every index step. Equal tags and payloads are equal values (a string: the same pooled copy;
// a double: the same bits — NaN is never stored).
inline int CompareValues(const Value& a, const Value& b) {
  if (a.tag_ == b.tag_) {
    if (a.bits_ == b.bits_) return 0;
    if (a.kind() == Value::Kind::kInt) return a.int_ < b.int_ ? -1 : 1;
  } else if (a.kind() == Value::Kind::kString && b.kind() == Value::Kind::kString) {
    return a.tag_ < b.tag_ ? -1 : 1;  // the first 7 bytes differ
  }
  return CompareValuesSlow(a, b);
}
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
