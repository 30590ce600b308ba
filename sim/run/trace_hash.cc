// trace_hash.cc — see trace_hash.h.
#include "sim/run/trace_hash.h"

#include <bit>
#include <cstring>

#include "absl/strings/str_format.h"
#include "xxhash.h"

namespace rindle::sim {

void RowHasher::Int(int64_t i) {
  const uint64_t u = static_cast<uint64_t>(i);
  for (int b = 0; b < 8; ++b) buf_.push_back(static_cast<char>((u >> (8 * b)) & 0xff));
}

void RowHasher::Str(std::string_view s) {
  Int(static_cast<int64_t>(s.size()));
  buf_.append(s);
}

void RowHasher::Cell(const Value& v) {
  Tag(static_cast<char>(v.kind()));
  switch (v.kind()) {
    case Value::Kind::kNull: return;
    case Value::Kind::kBool: return Tag(v.as_bool() ? 1 : 0);
    case Value::Kind::kInt: return Int(v.as_int());
    case Value::Kind::kDouble: return Int(std::bit_cast<int64_t>(v.as_double()));
    case Value::Kind::kString: return Str(v.as_string());
  }
}

void RowHasher::Row(const RowValues& row) {
  Tag('r');
  Int(static_cast<int64_t>(row.size()));
  for (const Value& v : row) Cell(v);
}

void RowHasher::Tree(const std::vector<TreeNode>& nodes) {
  Tag('t');
  Int(static_cast<int64_t>(nodes.size()));
  for (const TreeNode& n : nodes) {
    if (n.row) {
      Row(*n.row);
    } else {
      Tag('0');
    }
    Int(static_cast<int64_t>(n.relationships.size()));
    for (const auto& [alias, children] : n.relationships) {
      Str(alias);
      Tree(children);
    }
  }
}

uint64_t RowHasher::Digest() const { return XXH3_64bits(buf_.data(), buf_.size()); }

std::string RowHasher::Hex() const { return HexHash(Digest()); }

std::string HexHash(uint64_t h) { return absl::StrFormat("%016x", h); }

std::string HashTableRows(std::string_view table, const std::vector<RowValues>& rows) {
  RowHasher h;
  h.Str(table);
  h.Int(static_cast<int64_t>(rows.size()));
  for (const RowValues& r : rows) h.Row(r);
  return h.Hex();
}

std::string HashRowOps(const std::vector<RowOp>& ops) {
  RowHasher h;
  h.Int(static_cast<int64_t>(ops.size()));
  for (const RowOp& op : ops) {
    h.Tag(static_cast<char>('a' + static_cast<int>(op.op)));
    h.Str(op.table);
    h.Row(op.row);
    if (op.op == RowOp::Kind::kEdit) h.Row(op.old_row);
  }
  return h.Hex();
}

std::string HashWriteSet(const WriteSet& writes) {
  RowHasher h;
  for (const auto& [table, by_pk] : writes) {
    h.Str(table);
    h.Int(static_cast<int64_t>(by_pk.size()));
    for (const auto& [key, rec] : by_pk) {
      h.Str(key);
      if (rec.row) {
        h.Row(*rec.row);
      } else {
        h.Tag('-');
      }
      if (rec.old_row) {
        h.Row(*rec.old_row);
      } else {
        h.Tag('-');
      }
    }
  }
  return h.Hex();
}

std::string HashTree(const std::vector<TreeNode>& nodes) {
  RowHasher h;
  h.Tree(nodes);
  return h.Hex();
}

}  // namespace rindle::sim
