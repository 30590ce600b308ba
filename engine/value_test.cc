// Tests of CompareValues' inline fast paths (value.h: the tag holding a string's first 7 bytes,
// equal payloads, int/int) against the order of SPEC §2.1 written out longhand.
#include "engine/value.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rindle {
namespace {

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// The reference order: null < bool < numbers < strings; strings by unsigned bytes, then length.
int Reference(const Value& a, const Value& b) {
  auto rank = [](const Value& v) {
    return v.is_null() ? 0 : v.is_bool() ? 1 : v.is_number() ? 2 : 3;
  };
  if (rank(a) != rank(b)) return rank(a) < rank(b) ? -1 : 1;
  if (a.is_null()) return 0;
  if (a.is_bool()) return Sign(static_cast<int>(a.as_bool()) - static_cast<int>(b.as_bool()));
  if (a.is_number()) {
    if (a.kind() == Value::Kind::kInt && b.kind() == Value::Kind::kInt) {
      return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
    }
    return a.as_double() < b.as_double() ? -1 : (a.as_double() > b.as_double() ? 1 : 0);
  }
  return Sign(a.as_string().compare(b.as_string()));
}

std::vector<Value> Values() {
  std::vector<Value> out = {Value::Null(), Value::Bool(false), Value::Bool(true),
                            Value::Int(-5), Value::Int(0), Value::Int(3), Value::Number(2.5),
                            Value::Number(-1e300), Value::Int(INT64_MAX), Value::Int(INT64_MIN)};
  // Strings around the 7-byte prefix: shorter, equal-length, longer, sharing the prefix, with
  // NULs (a NUL byte and the zero padding must still order by length), high bytes (unsigned).
  const std::vector<std::string> texts = {
      "", "a", "ab", "abcdef", "abcdefg", "abcdefgh", "abcdefgi", "abcdefgh1", "abcdefg\xff",
      "i99881", "i100001", "i1000010", "i1000011", "c000123", "c0001230", "\xff\xfe",
      std::string("a\0", 2), std::string("a\0\0", 3), std::string("abcdefg\0", 8),
      std::string("\0", 1), "zzzzzzzzzzzzzzzzzzzz", "zzzzzzzzzzzzzzzzzzzy"};
  for (const std::string& t : texts) out.push_back(Value::String(t));
  return out;
}

TEST(ValueTest, CompareValuesMatchesTheReferenceOrder) {
  const std::vector<Value> vs = Values();
  for (const Value& a : vs) {
    for (const Value& b : vs) {
      EXPECT_EQ(Sign(CompareValues(a, b)), Reference(a, b))
          << a.DebugString() << " vs " << b.DebugString();
    }
  }
}

TEST(ValueTest, MovedFromIsNullAndCopiesCompareEqual) {
  Value a = Value::String("abcdefgh");
  Value b = a;
  EXPECT_EQ(CompareValues(a, b), 0);
  Value c = std::move(b);
  EXPECT_TRUE(b.is_null());  // NOLINT(bugprone-use-after-move): documented state
  EXPECT_EQ(CompareValues(b, Value::Null()), 0);
  EXPECT_EQ(CompareValues(c, a), 0);
  EXPECT_LT(CompareValues(b, c), 0);
}

}  // namespace
}  // namespace rindle
