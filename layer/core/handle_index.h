// SPDX-License-Identifier: MIT
// A map from OpenCL handles to a 64-bit summary and a second 64-bit word (a pointer, say) that
// readers search without a lock or an atomic read-modify-write, for entries hit on every call
// (clSetKernelArg): a mutex and a shared_ptr copy there cost several times what the driver's own
// call does.
//
// Open addressing with linear probing. Writers are serialised by their caller (the registry's
// mutex); readers only load. A slot's key is set after its value, so a reader that sees the key
// sees the value; a reader rechecks the key after reading the value, so a slot reused for
// another handle meanwhile is never read as this one's. Erased slots become tombstones (a probe
// must go on past them) and turn back into empty ones whenever no probe can need them any more.
// Setting a handle that has an entry rewrites its two words in place, so a reader racing it may
// see one old and one new: callers do that only where both say the same as before.
// A table that fills up is replaced by a bigger copy; the old one stays allocated because a
// reader may still be probing it (tables only grow, so all retired tables together are smaller
// than the current one).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace isg {

static_assert(std::atomic<uintptr_t>::is_always_lock_free &&
                  std::atomic<uint64_t>::is_always_lock_free,
              "readers must never block");

class HandleIndex {
 public:
  HandleIndex() { current_.store(newTable(kInitialCapacity), std::memory_order_release); }
  HandleIndex(const HandleIndex&) = delete;
  HandleIndex& operator=(const HandleIndex&) = delete;

  // Lock-free. False when `handle` has no entry; else *summary and, if given, *extra are its words.
  bool find(const void* handle, uint64_t* summary, uint64_t* extra = nullptr) const noexcept {
    const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
    if (key <= kTombstone) return false;
    const Table* t = current_.load(std::memory_order_acquire);
    // Few live values: the per-call entries that inline this must not need a frame. The probe
    // ends at an empty slot, and a table is never more than half keys and tombstones (set).
    const size_t mask = t->mask;
    const Slot* slots = t->slots();
    for (size_t i = slotOf(key, mask);; i = (i + 1) & mask) {
      const Slot& s = slots[i];
      const uintptr_t k = s.key.load(std::memory_order_acquire);
      if (k == kEmpty) return false;
      if (k != key) continue;
      const uint64_t v = s.value.load(std::memory_order_acquire);
      const uint64_t x = s.extra.load(std::memory_order_acquire);
      // Reused for another handle since the key was read: the handle was erased meanwhile.
      if (s.key.load(std::memory_order_relaxed) != key) return false;
      *summary = v;
      if (extra) *extra = x;
      return true;
    }
  }

  // The caller serialises set and erase. True when `handle` had an entry (then *previous, if
  // given, is its summary).
  bool set(const void* handle, uint64_t summary, uint64_t extra = 0, uint64_t* previous = nullptr) {
    const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
    if (key <= kTombstone) return false;
    Table* t = current_.load(std::memory_order_relaxed);
    Slot* reuse = nullptr;
    for (size_t i = slotOf(key, t->mask), n = 0; n <= t->mask; i = (i + 1) & t->mask, ++n) {
      Slot& s = t->slots()[i];
      const uintptr_t k = s.key.load(std::memory_order_relaxed);
      if (k == key) {
        if (previous) *previous = s.value.load(std::memory_order_relaxed);
        s.value.store(summary, std::memory_order_release);
        s.extra.store(extra, std::memory_order_release);
        return true;
      }
      if (k == kTombstone && !reuse) reuse = &s;
      if (k == kEmpty) break;
    }
    if (!reuse && (t->used + 1) * 2 > t->mask + 1) {
      t = grow(t);
      insertFresh(t, key, summary, extra);
      return false;
    }
    if (reuse) {
      publish(*reuse, key, summary, extra);
      ++t->live;
      return false;
    }
    insertFresh(t, key, summary, extra);
    return false;
  }

  // True when `handle` had an entry.
  bool erase(const void* handle) {
    const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
    if (key <= kTombstone) return false;
    Table* t = current_.load(std::memory_order_relaxed);
    for (size_t i = slotOf(key, t->mask), n = 0; n <= t->mask; i = (i + 1) & t->mask, ++n) {
      const uintptr_t k = t->slots()[i].key.load(std::memory_order_relaxed);
      if (k == kEmpty) return false;
      if (k != key) continue;
      --t->live;
      t->slots()[i].key.store(kTombstone, std::memory_order_release);
      // A tombstone followed by an empty slot ends every probe that reaches it, found or not,
      // exactly as an empty slot would; so do the tombstones right before it.
      if (t->slots()[(i + 1) & t->mask].key.load(std::memory_order_relaxed) != kEmpty) return true;
      for (size_t j = i; t->slots()[j].key.load(std::memory_order_relaxed) == kTombstone;
           j = (j - 1) & t->mask) {
        t->slots()[j].key.store(kEmpty, std::memory_order_release);
        --t->used;
      }
      return true;
    }
    return false;
  }

 private:
  static constexpr uintptr_t kEmpty = 0, kTombstone = 1;  // never the address of an object
  static constexpr size_t kInitialCapacity = 64;

  struct Slot {
    std::atomic<uintptr_t> key{kEmpty};
    std::atomic<uint64_t> value{0};
    std::atomic<uint64_t> extra{0};
  };
  // The slots follow the header in the same allocation: one dependent load less per lookup.
  struct alignas(Slot) Table {
    explicit Table(size_t capacity) : mask(capacity - 1) {
      for (size_t i = 0; i < capacity; ++i) new (reinterpret_cast<Slot*>(this + 1) + i) Slot;
    }
    const size_t mask;
    size_t used = 0;  // keys and tombstones: what lengthens probes (writers only)
    size_t live = 0;  // keys (writers only)

    // mask + 1 of them, right after the header.
    Slot* slots() { return std::launder(reinterpret_cast<Slot*>(this + 1)); }
    const Slot* slots() const { return std::launder(reinterpret_cast<const Slot*>(this + 1)); }

    static Table* make(size_t capacity) {
      void* memory = ::operator new(sizeof(Table) + capacity * sizeof(Slot));
      return new (memory) Table(capacity);
    }
    struct Free {
      void operator()(Table* t) const { ::operator delete(t); }  // Slot is trivially destructible
    };
  };
  static_assert(std::is_trivially_destructible_v<Slot>, "Table::Free skips the slots");

  static size_t slotOf(uintptr_t key, size_t mask) {
    // Handles are heap addresses: the low bits are alignment, the multiply spreads the rest.
    return static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
  }

  Table* newTable(size_t capacity) {
    table_.emplace_back(Table::make(capacity));
    return table_.back().get();
  }

  // Release on the value too: a reader that reads it then sees the tombstone (or the new key)
  // that came before it, and its recheck fails.
  static void publish(Slot& s, uintptr_t key, uint64_t summary, uint64_t extra) {
    s.value.store(summary, std::memory_order_release);
    s.extra.store(extra, std::memory_order_release);
    s.key.store(key, std::memory_order_release);
  }

  static void insertFresh(Table* t, uintptr_t key, uint64_t summary, uint64_t extra) {
    size_t i = slotOf(key, t->mask);
    while (t->slots()[i].key.load(std::memory_order_relaxed) > kTombstone) i = (i + 1) & t->mask;
    if (t->slots()[i].key.load(std::memory_order_relaxed) == kEmpty) ++t->used;
    publish(t->slots()[i], key, summary, extra);
    ++t->live;
  }

  // Copies the live entries into a table with room for twice as many, then publishes it.
  Table* grow(const Table* old) {
    size_t capacity = old->mask + 1;
    while ((old->live + 1) * 4 > capacity) capacity *= 2;
    if (capacity == old->mask + 1) capacity *= 2;  // tombstones filled it: still grow, see above
    Table* t = newTable(capacity);
    for (size_t i = 0; i <= old->mask; ++i) {
      const uintptr_t k = old->slots()[i].key.load(std::memory_order_relaxed);
      if (k > kTombstone)
        insertFresh(t, k, old->slots()[i].value.load(std::memory_order_relaxed),
                    old->slots()[i].extra.load(std::memory_order_relaxed));
    }
    current_.store(t, std::memory_order_release);
    return t;
  }

  std::vector<std::unique_ptr<Table, Table::Free>>
      table_;  // every table ever published; the last is current
  std::atomic<Table*> current_;
};

// Which handles a per-call entry must look up at all: a count of such handles per hash slot,
// so that a handle whose slot counts none is known in one load to need nothing. The handles
// of kernels the layer passes through, nearly every one an application sets arguments on, then
// go to the driver without a probe of the indexes (docs/performance.md, benchmark 6). A
// nonzero count only says "look": the indexes decide. Writers add a handle before the
// application can see it and remove it after its index entry is gone; counts are 32-bit, so
// they cannot wrap. Constant-initialised: no guard on the per-call path, nothing to destroy.
//
// A slot also caches the two words of one handle of an index (the kernel index's), in the
// cache line the count was read from: the per-call path of such a handle then reads no table.
// One writer (the index's, under its mutex) fills and empties the cache. A slot caches the
// first handle set into it while empty, until that handle is erased, and a handle's words do
// not change while it has an entry (KernelIndex::set). So the writer publishes the words
// before the key (a release store) and takes the key away before the handle's erasure, and a
// reader that loads its own handle as the key (acquire) reads that handle's words: for them to
// change during the read, the handle would have to be released and made again during the
// call that names it, which the application may not do.
class HandleFilter {
 public:
  constexpr HandleFilter() = default;
  bool mayHold(const void* handle) const noexcept {
    return slots_[slotOf(handle)].count.load(std::memory_order_acquire) != 0;
  }
  void add(const void* handle) noexcept {
    slots_[slotOf(handle)].count.fetch_add(1, std::memory_order_release);
  }
  void remove(const void* handle) noexcept {
    slots_[slotOf(handle)].count.fetch_sub(1, std::memory_order_release);
  }

  // Lock-free: true with the words of `handle` where its slot caches it.
  bool cached(const void* handle, uint64_t* summary, uint64_t* extra) const noexcept {
    const Slot& s = slots_[slotOf(handle)];
    if (s.key.load(std::memory_order_acquire) != reinterpret_cast<uintptr_t>(handle)) return false;
    *summary = s.summary.load(std::memory_order_relaxed);
    *extra = s.extra.load(std::memory_order_relaxed);
    return true;
  }
  // The cache's one writer: `handle`'s words, where its slot caches nothing or caches it (with
  // the same words).
  void cache(const void* handle, uint64_t summary, uint64_t extra) noexcept {
    Slot& s = slots_[slotOf(handle)];
    const uintptr_t key = s.key.load(std::memory_order_relaxed);
    if (key != kNone && key != reinterpret_cast<uintptr_t>(handle)) return;
    s.summary.store(summary, std::memory_order_relaxed);
    s.extra.store(extra, std::memory_order_relaxed);
    s.key.store(reinterpret_cast<uintptr_t>(handle), std::memory_order_release);
  }
  // The cache's one writer: `handle` cached no more.
  void uncache(const void* handle) noexcept {
    Slot& s = slots_[slotOf(handle)];
    if (s.key.load(std::memory_order_relaxed) != reinterpret_cast<uintptr_t>(handle)) return;
    s.key.store(kNone, std::memory_order_relaxed);
    s.summary.store(0, std::memory_order_relaxed);
    s.extra.store(0, std::memory_order_relaxed);
  }

 private:
  // The key of a slot that caches nothing: not NULL, which an application may pass to find an
  // error, and no object's address.
  static constexpr uintptr_t kNone = 1;
  struct alignas(32) Slot {
    std::atomic<uint32_t> count{0};
    std::atomic<uintptr_t> key{kNone};  // the cached handle
    std::atomic<uint64_t> summary{0};
    std::atomic<uint64_t> extra{0};
  };
  static constexpr unsigned kSlotBits = 12;
  static size_t slotOf(const void* handle) {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(handle) * 0x9E3779B97F4A7C15ull) >>
                               (64 - kSlotBits));
  }
  Slot slots_[size_t{1} << kSlotBits] = {};
};

}  // namespace isg
