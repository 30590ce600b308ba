// room_view.h — RoomRecordView: the read-only props::RoomView (properties/world.h) over one
// RoomAuthority's record of every mid it processed (room.h RoomRecord). Holds only the pointer;
// the room outlives it. Source: issue 12 (properties read what the rooms did).
#pragma once

#include <string_view>

#include "properties/world.h"
#include "sim/authority/room.h"

namespace rindle::sim {

class RoomRecordView : public props::RoomView {
 public:
  explicit RoomRecordView(const RoomAuthority* room) : room_(room) {}
  std::string_view key() const override { return room_->source_key(); }
  size_t record_count() const override { return room_->records().size(); }
  props::RoomMidRef record(size_t i) const override {
    const RoomRecord& r = room_->records()[i];
    return {r.client_id, r.mid, r.name, &r.args, RoomFateName(r.fate), r.reason, r.flush_seq,
            r.lost};
  }

 private:
  const RoomAuthority* room_;
};

}  // namespace rindle::sim
