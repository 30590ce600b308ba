// Tests of the interned string cells (string_pool.h) through Value: one pooled copy per distinct
// text, released with its last cell, and ordering by bytes whatever the allocation order.
#include "engine/string_pool.h"

#include <utility>

#include "engine/value.h"
#include "gtest/gtest.h"

namespace rindle {
namespace {

using internal::InternedStringCount;

TEST(StringPoolTest, ValueIsSixteenBytes) { EXPECT_EQ(sizeof(Value), 16u); }

TEST(StringPoolTest, EqualTextSharesOneCopyAndIsReleasedWithTheLastCell) {
  const size_t base = InternedStringCount();
  {
    Value a = Value::String("a string longer than the small-string buffer");
    Value b = Value::String(std::string("a string longer than the small-string buffer"));
    EXPECT_TRUE(a.SameString(b));
    EXPECT_EQ(&a.as_string(), &b.as_string());
    EXPECT_EQ(InternedStringCount(), base + 1);
    Value c = Value::String("other");
    EXPECT_FALSE(a.SameString(c));
    EXPECT_EQ(InternedStringCount(), base + 2);
    { Value copy = c; EXPECT_EQ(InternedStringCount(), base + 2); }
    EXPECT_EQ(c.as_string(), "other");
  }
  EXPECT_EQ(InternedStringCount(), base);
}

TEST(StringPoolTest, CopyMoveAndAssignKeepCountsRight) {
  const size_t base = InternedStringCount();
  {
    Value a = Value::String("x1");
    Value b = a;                 // copy
    Value c = std::move(b);      // move: b becomes null
    EXPECT_TRUE(b.is_null());    // NOLINT(bugprone-use-after-move): documented state
    EXPECT_EQ(c.as_string(), "x1");
    c = c;                       // self-assignment keeps the reference
    EXPECT_EQ(c.as_string(), "x1");
    c = Value::String("x2");     // the old text loses a holder, not its last one
    EXPECT_EQ(InternedStringCount(), base + 2);
    a = Value::Int(3);           // "x1" loses its last holder
    EXPECT_EQ(InternedStringCount(), base + 1);
    a = c;
    c = Value::Null();
    EXPECT_EQ(a.as_string(), "x2");
    EXPECT_EQ(InternedStringCount(), base + 1);
  }
  EXPECT_EQ(InternedStringCount(), base);
}

TEST(StringPoolTest, OrderIsByBytesNotByAllocation) {
  // Created in reverse order so the pool's addresses run opposite to the text order.
  const Value z = Value::String("zz");
  const Value m = Value::String("mm");
  const Value a = Value::String("aa");
  EXPECT_LT(CompareValues(a, m), 0);
  EXPECT_LT(CompareValues(m, z), 0);
  EXPECT_GT(CompareValues(z, a), 0);
  EXPECT_EQ(CompareValues(a, Value::String("aa")), 0);
  EXPECT_LT(CompareValues(Value::String(""), a), 0);
  EXPECT_LT(CompareValues(Value::Int(1), a), 0);  // kind rank: numbers before strings
}

TEST(StringPoolTest, CellsKeepTheirKindsAndPayloads) {
  EXPECT_EQ(Value::Int(-7).as_int(), -7);
  EXPECT_TRUE(Value::Bool(true).as_bool());
  EXPECT_EQ(Value::Number(2.5).as_double(), 2.5);
  EXPECT_EQ(Value::Number(3.0).kind(), Value::Kind::kInt);
  EXPECT_EQ(Value::String("s").kind(), Value::Kind::kString);
  EXPECT_TRUE(Value().is_null());
  EXPECT_EQ(Value::String("é\"q").DebugString(), "\"é\\\"q\"");
}

TEST(StringPoolDeathTest, ReadingTheWrongKindIsACheckFailure) {
  EXPECT_DEATH((void)Value::String("s").as_int(), "read as kind");
}

}  // namespace
}  // namespace rindle
