#include "engine/index_build.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/order_prefix.h"
#include "engine/table.h"
#include "gtest/gtest.h"

namespace rindle {
namespace {

// (id, key, n, m): keys with many ties, exact and inexact prefixes (long, NUL), numbers and nulls.
TableSpec Spec() {
  TableSpec s;
  s.columns = {{"id", ColumnType::kString, false},
               {"key", ColumnType::kString, true},
               {"n", ColumnType::kNumber, true},
               {"m", ColumnType::kNumber, false}};
  s.primary_key = {0};
  return s;
}

std::vector<Row> Rows() {
  const std::vector<Value> keys = {Value::Null(),           Value::String(""),
                                   Value::String("u03"),    Value::String("u03x"),
                                   Value::String("abcdefgh"), Value::String("abcdefghi"),
                                   Value::String(std::string("ab\0", 3)),
                                   Value::String("ab")};
  std::vector<Row> rows;
  uint64_t x = 12345;
  for (int i = 0; i < 400; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const Value n = (x >> 40) % 5 == 0 ? Value::Null()
                                       : Value::Number(static_cast<double>((x >> 33) % 7) / 2);
    // ids of 7 bytes (exact) and of 9 (inexact), so pk ties on the prefix happen too.
    const std::string id = (i % 2 ? "r" : "longid-r") + std::to_string(1000 + i);
    // m: numbers only (the exact-image path), ints and doubles mixed, -0 beside +0, ties.
    const int64_t k = static_cast<int64_t>((x >> 20) % 9) - 4;
    const Value m = k == 0 ? Value::Number(-0.0) : (k % 2 ? Value::Int(k) : Value::Number(k / 3.0));
    rows.push_back(MakeRow({Value::String(id), keys[(x >> 50) % keys.size()], n, m}));
  }
  return rows;
}

TEST(IndexBuildTest, SortsExactlyAsCompareBySort) {
  const std::vector<Row> rows = Rows();
  const std::vector<std::vector<SortPart>> sorts = {
      {{0, false}},
      {{1, false}, {0, false}},
      {{1, true}, {0, false}},
      {{1, false}, {2, true}, {0, false}},
      {{2, false}, {1, true}, {0, false}},
      {{2, true}, {0, true}},
      {{3, false}, {0, false}},
      {{3, true}, {1, false}, {0, false}},
      {{1, false}, {3, true}, {0, false}},
  };
  for (const auto& sort : sorts) {
    std::vector<const Row*> got;
    for (const Row& r : rows) got.push_back(&r);
    std::vector<const Row*> want = got;
    SortRowsForIndex(sort, got);
    std::sort(want.begin(), want.end(), [&](const Row* a, const Row* b) {
      return CompareBySort(sort, **a, **b) < 0;
    });
    ASSERT_EQ(got, want) << "sort of " << sort.size() << " parts, first column " << sort[0].column;
  }
}

TEST(IndexBuildTest, PrefixExactness) {
  EXPECT_TRUE(OrderPrefixExact(Value::Null()));
  EXPECT_TRUE(OrderPrefixExact(Value::Bool(true)));
  EXPECT_TRUE(OrderPrefixExact(Value::String("i000123")));
  EXPECT_TRUE(OrderPrefixExact(Value::String("")));
  EXPECT_FALSE(OrderPrefixExact(Value::String("i0001234")));
  EXPECT_FALSE(OrderPrefixExact(Value::String(std::string("a\0", 2))));
  EXPECT_FALSE(OrderPrefixExact(Value::Int(3)));
  EXPECT_FALSE(OrderPrefixExact(Value::Number(0.5)));
}

std::vector<RowValues> InOrder(const RowIndexSet& set) {
  std::vector<RowValues> out;
  for (const Row& r : set) out.push_back(*r);
  return out;
}

TEST(IndexBuildTest, TableSharesIndexesAndKeepsThemOrdered) {
  Table t("t", Spec(), /*local=*/true);
  for (const Row& r : Rows()) t.Put(t.spec().PkOf(*r), r, /*optimistic=*/false);
  const std::vector<SortPart> by_key = {{1, false}, {2, true}, {0, false}};
  const RowIndexSet& a = t.AcquireIndex(by_key);
  // A repeated column is dropped: (id, id) is the index (id).
  EXPECT_EQ(&t.AcquireIndex({{0, false}, {0, false}}), &t.AcquireIndex({{0, false}}));
  // A run reader leading with `key` shares the (key, n desc, id) index.
  std::vector<SortPart> held;
  EXPECT_EQ(&t.AcquireRunIndex({1}, &held), &a);
  EXPECT_EQ(held.size(), by_key.size());
  // None leads with n ascending: a new (n, id) index.
  std::vector<SortPart> held_n;
  const RowIndexSet& n = t.AcquireRunIndex({2}, &held_n);
  EXPECT_NE(&n, &a);
  EXPECT_EQ(held_n.size(), 2u);
  EXPECT_EQ(t.live_index_refs(), 5u);
  // After the bulk build the comparator compares again: writes land in order.
  t.Put({Value::String("r0")},
        MakeRow({Value::String("r0"), Value::String("u03"), Value::Null(), Value::Int(0)}), false);
  t.Put({Value::String("r1001")}, nullptr, false);
  for (const auto* idx : {&a, &n}) {
    const std::vector<SortPart>& sort = idx == &a ? by_key : held_n;
    std::vector<RowValues> rows = InOrder(*idx);
    EXPECT_EQ(rows.size(), t.size());
    EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end(), [&](const auto& x, const auto& y) {
      return CompareBySort(sort, x, y) < 0;
    }));
  }
  t.ReleaseIndex(held_n);
  t.ReleaseIndex(held);
  t.ReleaseIndex({{0, false}});
  t.ReleaseIndex({{0, false}, {0, false}});
  t.ReleaseIndex(by_key);
  EXPECT_EQ(t.live_index_refs(), 0u);
}

}  // namespace
}  // namespace rindle
