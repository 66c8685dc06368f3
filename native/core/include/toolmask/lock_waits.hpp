// The count of times the thread that samples (the decode path: a sampler's apply and accept,
// fast-forward) found a compiled grammar's lock held by another thread, and the work it did itself.
// The lock is the core's own (native/core/grammar_lock.hpp says who holds it and when).
#pragma once
#include <cstdint>

namespace toolmask {

struct LockWaits {
  uint64_t waits = 0;      // contended acquisitions whose holder ran its work to the end
  uint64_t handoffs = 0;   // contended acquisitions whose holder was the prefetch thread (it yields)
  uint64_t joins = 0;      // ...that was making the step the decode thread asked for (let finish)
  uint64_t waitNanos = 0;  // time blocked in all three
  // Work the decode thread did itself (not found made by the prefetch thread): state masks built,
  // and the token budget's trie walks (a state's successors or its call-opening tokens).
  uint64_t masksBuilt = 0;
  uint64_t budgetWalks = 0;
};

// While one lives on a thread, that thread's contended acquisitions of any grammar's lock are
// counted into `into` (Sequence::sampleNext holds one around each step).
class CountLockWaits {
 public:
  explicit CountLockWaits(LockWaits* into);
  ~CountLockWaits();
  CountLockWaits(const CountLockWaits&) = delete;
  CountLockWaits& operator=(const CountLockWaits&) = delete;

 private:
  LockWaits* prev_;
};

}  // namespace toolmask
