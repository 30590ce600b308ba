#include "engine/order_prefix.h"

#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace rindle {
namespace {

// The one guarantee: a < b under CompareValues implies OrderPrefix(a) <= OrderPrefix(b).
TEST(OrderPrefixTest, MonotoneUnderCompareValues) {
  const std::vector<Value> values = {
      Value::Null(),        Value::Bool(false),
      Value::Bool(true),    Value::Number(-std::numeric_limits<double>::max()),
      Value::Int(-5),       Value::Number(-2.5),
      Value::Number(-0.0),  Value::Int(0),
      Value::Number(1e-300), Value::Number(0.5),
      Value::Int(1),        Value::Number(1.5),
      Value::Int(std::numeric_limits<int64_t>::max() - 1),
      Value::Int(std::numeric_limits<int64_t>::max()),
      Value::String(""),    Value::String(std::string("\0", 1)),
      Value::String("a"),   Value::String("ab"),
      Value::String("abcdefgh"), Value::String("abcdefgha"),
      Value::String("abcdefgi"), Value::String("i000123"),
      Value::String("i1000000"), Value::String("i1000001"),
      Value::String("\xc3\x9cnicode"), Value::String("\xf0\x9f\x8e\x89"),
  };
  for (const Value& a : values) {
    for (const Value& b : values) {
      if (CompareValues(a, b) < 0) {
        EXPECT_LE(OrderPrefix(a), OrderPrefix(b)) << a << " < " << b;
      }
      if (CompareValues(a, b) == 0) {
        EXPECT_EQ(OrderPrefix(a), OrderPrefix(b)) << a << " = " << b;
      }
      if (OrderPrefix(a) < OrderPrefix(b)) {
        EXPECT_LT(CompareValues(a, b), 0) << a << " vs " << b;
      }
    }
  }
}

TEST(OrderPrefixTest, DistinguishesShortKeys) {
  EXPECT_LT(OrderPrefix(Value::String("i000123")), OrderPrefix(Value::String("i000124")));
  EXPECT_LT(OrderPrefix(Value::Number(12.345)), OrderPrefix(Value::Number(12.346)));
  EXPECT_LT(OrderPrefix(Value::Int(-3)), OrderPrefix(Value::Int(2)));
}

}  // namespace
}  // namespace rindle
