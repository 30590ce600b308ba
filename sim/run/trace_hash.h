// trace_hash.h — stable 64-bit hashes of row data for the canonical trace (trace.h): seed
// tables, row ops of a server frame, a twin's committed write-set, a view's result tree, a
// store's tables. Stateless functions plus RowHasher, a byte encoder whose state is one buffer.
//
// Encoding (what is hashed, so two runs agree byte for byte): every item is prefixed by a tag
// byte; a Value is its kind byte then bool → 1 byte, int64 → 8 bytes little-endian, double →
// its IEEE-754 bits (8 bytes LE), string → 8-byte length then the bytes; a row is its width
// then its cells; a list is its length then its items. No absl::Hash (seeded per process) and
// no JSON (too slow per step). The hash is XXH3-64 (seed 0) over that encoding, the same
// library hash as the trace digest, printed as 16 lowercase hex digits.
// Invariant: equal data ⇒ equal hash in every process and build; a changed cell, row, order
// (for ordered inputs) or table name changes the encoding (collisions aside).
// Errors: none.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/change.h"
#include "engine/value.h"
#include "optimistic/source.h"
#include "optimistic/write_set.h"

namespace rindle::sim {

class RowHasher {
 public:
  void Tag(char tag) { buf_.push_back(tag); }
  void Int(int64_t i);
  void Str(std::string_view s);
  void Cell(const Value& v);
  void Row(const RowValues& row);
  void Tree(const std::vector<TreeNode>& nodes);
  // XXH3-64 of everything added so far.
  uint64_t Digest() const;
  std::string Hex() const;

 private:
  std::string buf_;
};

std::string HexHash(uint64_t h);
// One seed table: its name and rows in the given order.
std::string HashTableRows(std::string_view table, const std::vector<RowValues>& rows);
// A frame's row ops (kind, table, row, old row), in order.
std::string HashRowOps(const std::vector<RowOp>& ops);
// A write-set in its map order (table, pk key, post-image or removal, pre-image).
std::string HashWriteSet(const WriteSet& writes);
// A result tree (rows, relationship aliases, children), in view order.
std::string HashTree(const std::vector<TreeNode>& nodes);

}  // namespace rindle::sim
