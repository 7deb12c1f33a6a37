// SPDX-License-Identifier: MIT
// The lock-free kernel index (layer/core/handle_index.h) on its own: a model map to compare with
// under churn, and readers racing a writer. Through the layer, concurrency_test covers its use.
#include "core/handle_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

const void* handle(uintptr_t address) { return reinterpret_cast<const void*>(address); }

TEST(HandleIndex, SetFindUpdateErase) {
  isg::HandleIndex index;
  uint64_t v = 0;
  EXPECT_FALSE(index.find(handle(0x1000), &v));
  EXPECT_FALSE(index.set(handle(0x1000), 7));  // a new entry
  ASSERT_TRUE(index.find(handle(0x1000), &v));
  EXPECT_EQ(v, 7u);
  uint64_t previous = 0;
  EXPECT_TRUE(index.set(handle(0x1000), 9, 0, &previous));  // an entry set again
  EXPECT_EQ(previous, 7u);
  ASSERT_TRUE(index.find(handle(0x1000), &v));
  EXPECT_EQ(v, 9u);
  uint64_t extra = 0;
  ASSERT_TRUE(index.find(handle(0x1000), &v, &extra));
  EXPECT_EQ(extra, 0u);  // the second word defaults to 0
  index.set(handle(0x1000), 11, 0xfeedull);
  ASSERT_TRUE(index.find(handle(0x1000), &v, &extra));
  EXPECT_EQ(v, 11u);
  EXPECT_EQ(extra, 0xfeedull);
  EXPECT_TRUE(index.erase(handle(0x1000)));
  EXPECT_FALSE(index.find(handle(0x1000), &v));
  EXPECT_FALSE(index.erase(handle(0x1000)));
  // Null and the reserved values are never entries.
  index.set(nullptr, 1);
  EXPECT_FALSE(index.find(nullptr, &v));
  index.set(handle(1), 1);
  EXPECT_FALSE(index.find(handle(1), &v));
}

// The per-call filter: never "no" for a handle added and not yet removed, whatever shares its
// slot; "no" again once every handle of the slot is gone. Checked against a model multiset.
TEST(HandleFilter, NeverMissesAHandleItHolds) {
  static isg::HandleFilter filter;  // as the layer keeps it: static storage
  std::unordered_map<uintptr_t, int> held;
  std::mt19937_64 random(7);
  // 20,000 heap-like handles: every slot of the 4,096 is shared by several.
  std::vector<uintptr_t> pool;
  for (int i = 0; i < 20000; ++i) pool.push_back(0x7f0000000000ull + 64 * uintptr_t(i));
  for (int step = 0; step < 200000; ++step) {
    const uintptr_t h = pool[random() % pool.size()];
    if (random() % 2) {
      filter.add(handle(h));
      ++held[h];
    } else if (held[h] > 0) {
      filter.remove(handle(h));
      --held[h];
    }
    const uintptr_t probe = pool[random() % pool.size()];
    if (held[probe] > 0) {
      ASSERT_TRUE(filter.mayHold(handle(probe))) << "step " << step;
    }
  }
  for (auto& [h, count] : held)
    for (; count > 0; --count) filter.remove(handle(h));
  for (uintptr_t h : pool) {
    ASSERT_FALSE(filter.mayHold(handle(h))) << "emptied, yet it holds " << h;
  }
  EXPECT_FALSE(filter.mayHold(nullptr));
}

// The filter's per-slot cache: a slot caches the first handle set into it while empty and
// answers for that handle only; readers racing its one writer never see a torn pair of words
// nor another handle's, nor an earlier life's words of a handle made again at one address.
TEST(HandleFilter, CacheAnswersOnlyForItsHandleAndNeverStale) {
  static isg::HandleFilter filter;
  uint64_t summary = 0, extra = 0;
  const void* a = handle(0x7f0000001000ull);
  EXPECT_FALSE(filter.cached(a, &summary, &extra));
  filter.cache(a, 5, ~uint64_t{5});
  ASSERT_TRUE(filter.cached(a, &summary, &extra));
  EXPECT_EQ(summary, 5u);
  // Another handle of the same slot: found by brute force among heap-like addresses.
  const void* b = nullptr;
  for (uintptr_t x = 0x7f0000001040ull; !b; x += 64) {
    filter.add(handle(x));
    uint64_t s = 0, e = 0;
    // A handle shares a's slot exactly when caching it leaves a's entry in place and it
    // is not answered for.
    filter.cache(handle(x), 9, ~uint64_t{9});
    if (!filter.cached(handle(x), &s, &e))
      b = handle(x);
    else
      filter.uncache(handle(x));
    filter.remove(handle(x));
  }
  EXPECT_FALSE(filter.cached(b, &summary, &extra)) << "a slot caches one handle";
  ASSERT_TRUE(filter.cached(a, &summary, &extra));
  EXPECT_EQ(summary, 5u) << "a cached handle keeps its slot";
  filter.uncache(b);  // not the cached one: nothing changes
  EXPECT_TRUE(filter.cached(a, &summary, &extra));
  filter.uncache(a);
  EXPECT_FALSE(filter.cached(a, &summary, &extra));
  filter.cache(b, 7, ~uint64_t{7});  // the slot is free again
  ASSERT_TRUE(filter.cached(b, &summary, &extra));
  EXPECT_EQ(summary, 7u);
  filter.uncache(b);

  // Handles live, die and are made again at the same addresses, with new words each life, as
  // the driver reuses them; groups of four share a slot. Readers name only live handles and the
  // writer drops one only once no reader names it, as the API requires of the application
  // (a release after the calls that name the kernel). Each life's words: the address in the
  // high bits, the life in the low ones, extra == ~summary.
  std::vector<uintptr_t> handles;
  for (uintptr_t base = 0x7f0000100000ull; handles.size() < 32; base += 0x100000) {
    handles.push_back(base);
    filter.cache(handle(base), 1, 1);
    for (uintptr_t x = base + 64; handles.size() % 4 != 0; x += 64) {
      uint64_t s = 0, e = 0;
      filter.cache(handle(x), 1, 1);
      if (!filter.cached(handle(x), &s, &e)) handles.push_back(x);  // the base's slot
      filter.uncache(handle(x));
    }
    filter.uncache(handle(base));
  }
  struct Life {
    std::atomic<uint32_t> state{0};  // bit 0: alive; the rest: the life's number
    std::atomic<int> users{0};
  };
  std::vector<Life> lives(handles.size());
  auto words = [&](size_t i, uint32_t state) {
    return uint64_t(handles[i]) << 8 | (state >> 1 & 0xff);
  };
  std::atomic<bool> stop{false};
  std::atomic<size_t> wrong{0}, answered{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&, r] {
      for (size_t n = r; !stop.load(std::memory_order_relaxed); ++n) {
        const size_t i = n % handles.size();
        Life& life = lives[i];
        const uint32_t state = life.state.load();
        if (!(state & 1)) continue;
        life.users.fetch_add(1);
        if (life.state.load() == state) {  // alive until users drops again
          uint64_t s = 0, e = 0;
          if (filter.cached(handle(handles[i]), &s, &e)) {
            answered.fetch_add(1, std::memory_order_relaxed);
            if (s != words(i, state) || e != ~s) wrong.fetch_add(1, std::memory_order_relaxed);
          }
        }
        life.users.fetch_sub(1);
      }
    });
  std::mt19937_64 random(11);
  for (int step = 0; step < 1000000; ++step) {
    const size_t i = random() % handles.size();
    Life& life = lives[i];
    const uint32_t state = life.state.load(std::memory_order_relaxed);
    if (state & 1) {  // release: no new user, wait for the current ones, then drop it
      life.state.store(state & ~1u);
      for (int spin = 0; life.users.load() != 0; ++spin)
        if (spin > 1000) std::this_thread::yield();
      filter.uncache(handle(handles[i]));
    } else {  // made again: new words
      const uint32_t next = state + 3;
      const uint64_t s = words(i, next);
      filter.cache(handle(handles[i]), s, ~s);
      life.state.store(next);
    }
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  for (uintptr_t h : handles) filter.uncache(handle(h));
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(answered.load(), 0u) << "the readers never saw a cached handle";
}

// Heap-like addresses from a small pool, so handles come back as drivers reuse them.
TEST(HandleIndex, MatchesAMapUnderChurnAndGrowth) {
  isg::HandleIndex index;
  std::unordered_map<uintptr_t, uint64_t> model;
  std::vector<uintptr_t> live;
  std::mt19937_64 rng(1);
  auto address = [&] { return 0x7f0000000000ull + (rng() % 8192) * 64; };
  for (int step = 0; step < 400000; ++step) {
    const size_t target = step < 200000 ? 3000 : 40;  // grow, then shrink and churn
    if (live.size() < target || live.empty() || (live.size() == target && (rng() & 1))) {
      const uintptr_t a = address();
      const uint64_t v = rng();
      if (!model.count(a)) live.push_back(a);
      model[a] = v;
      index.set(handle(a), v, ~v);  // both words must survive growth and tombstones
    } else {
      const size_t i = rng() % live.size();
      index.erase(handle(live[i]));
      model.erase(live[i]);
      live[i] = live.back();
      live.pop_back();
    }
    if (step % 997 == 0) {
      for (int q = 0; q < 64; ++q) {
        const uintptr_t a = address();
        uint64_t v = 0, extra = 0;
        const bool found = index.find(handle(a), &v, &extra);
        auto it = model.find(a);
        ASSERT_EQ(found, it != model.end()) << "step " << step;
        if (found) {
          ASSERT_EQ(v, it->second) << "step " << step;
          ASSERT_EQ(extra, ~it->second) << "step " << step;
        }
      }
    }
  }
}

TEST(HandleIndex, ReadersNeverMissAnEntryWhileAWriterChurns) {
  isg::HandleIndex index;
  std::vector<uintptr_t> stable;
  for (uintptr_t i = 0; i < 64; ++i) {
    stable.push_back(0x7e0000000000ull + i * 4160);
    index.set(handle(stable.back()), stable.back() ^ 0x5a5a, stable.back());
  }
  std::atomic<bool> stop{false};
  std::atomic<long> wrong{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        for (uintptr_t a : stable) {
          uint64_t v = 0, extra = 0;
          if (!index.find(handle(a), &v, &extra) || v != (a ^ 0x5a5a) || extra != a) ++wrong;
        }
        uint64_t v = 0;
        if (index.find(handle(0x10), &v)) ++wrong;  // never inserted
      }
    });
  }
  std::mt19937_64 rng(2);
  std::vector<uintptr_t> churn;
  for (int step = 0; step < 300000; ++step) {
    if (churn.size() < 200 || (rng() & 1)) {
      const uintptr_t a = 0x7f8000000000ull + (rng() % 100000) * 64;
      index.set(handle(a), 5);
      churn.push_back(a);
    } else {
      const size_t i = rng() % churn.size();
      index.erase(handle(churn[i]));
      churn[i] = churn.back();
      churn.pop_back();
    }
    if (churn.size() > 4000) {  // forces growth, then a mass of tombstones
      for (uintptr_t a : churn) index.erase(handle(a));
      churn.clear();
    }
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
