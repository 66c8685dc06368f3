// The compiled grammar's lock, and the count of times the thread that samples (the decode path:
// a sampler's apply and accept, fast-forward) found it held by another thread.
//
// Two kinds of holder: a caller (Foreground: a matcher's step or mask, a parser's check), which
// runs its work to the end, and the mask-prefetch thread (Background: prefetched masks, budget
// searches, the breadth-first precompute), whose walks stop at their next check (every
// kYieldEvery trie nodes) once a caller waits, and release the lock with nothing kept but the
// automaton's new states. A decode thread that finds a caller's hold has waited on another
// thread's work (`waits`); one that finds the prefetch thread's waits only for it to stop
// (`handoffs`; which of the two is told by who let go of the lock last: a look at the holder
// would take a prefetch thread off the CPU between taking the lock and marking its hold for a
// caller), unless the prefetch thread is making the very step the decode thread asks for (the
// mask and budget of the state it stands in): then it lets that work finish rather than make it
// again itself (`joins`). All are timed (`waitNanos`).
#pragma once
#include <atomic>
#include <condition_variable>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

#include "include/toolmask/lock_waits.hpp"  // LockWaits, CountLockWaits

namespace toolmask {

// Thrown by a walk on the prefetch thread when a caller waits for the grammar's lock: the work so
// far is dropped (caught in CompiledGrammar's background entry points).
struct Yielded {};

namespace lockwait {
// The counts of the decode path on this thread (null: not counted).
inline thread_local LockWaits* counting = nullptr;
// On the prefetch thread while it holds a grammar's lock: that grammar's count of waiting callers.
inline thread_local const std::atomic<int>* yieldOn = nullptr;
// Masks the decode path asked the prefetch thread for, not yet begun (native/core/mask_prefetch.cpp);
// while `yieldToJobs` is set on it (its breadth-first precompute), its walks stop for them too.
inline std::atomic<int> jobsQueued{0};
inline thread_local bool yieldToJobs = false;
constexpr uint32_t kYieldEvery = 256;  // trie nodes between checks (about 8 µs with a 151k vocabulary)

// Set on the prefetch thread while it makes a step's first searches (CompiledGrammar::prefetchStep):
// like the decode thread, it takes a bound where a search ran out as it is (grammar_budget.cpp).
inline thread_local bool takeCutBounds = false;

// Counts work the decode thread does itself (LockWaits::masksBuilt, budgetWalks).
inline void countWork(uint64_t LockWaits::* field) {
  if (counting) (counting->*field)++;
}

// Tells threads apart at the lock (its address: one per thread).
inline thread_local char threadTag = 0;

// For tests (native/tests/lock_kind_tests.cpp): on a thread that holds as the prefetch thread, a
// pause just after it took the lock and just before it lets go, where a thread taken off the CPU
// stands: what a caller that comes then waits for is the prefetch thread's hold, not work.
inline thread_local std::chrono::microseconds pauseAtHandover{0};
inline void pauseIfAsked() {
  if (pauseAtHandover.count() > 0) std::this_thread::sleep_for(pauseAtHandover);
}

// For tests (native/tests/yield_tests.cpp): while nonzero on a thread that holds as the prefetch
// thread, every node is a check and the check this counts down to yields, as if a caller waited
// there; then it is 0 again.
inline thread_local uint64_t yieldAtCheck = 0;

// Called by walks once per trie node: throws Yielded every kYieldEvery nodes if a caller waits.
inline void poll(uint32_t& ticks) {
  if (!yieldOn) return;
  if (yieldAtCheck != 0) {
    if (--yieldAtCheck == 0) throw Yielded{};
    return;
  }
  if (++ticks % kYieldEvery == 0 &&
      (yieldOn->load(std::memory_order_relaxed) > 0 || (yieldToJobs && jobsQueued.load(std::memory_order_relaxed) > 0)))
    throw Yielded{};
}

// poll() for one walk: whether this thread may yield is read once, at the walk's start (yieldOn
// stays as it is through a walk: a NoYield inside one ends before the walk's next check). A thread
// that may not (every caller's thread) pays a test per node instead of a thread-local read, which
// from a shared library is a call into the dynamic loader (__tls_get_addr) at every trie node.
class Poll {
 public:
  void operator()() {
    if (on_) poll(ticks_);
  }

 private:
  bool on_ = yieldOn != nullptr;
  uint32_t ticks_ = 0;
};
}  // namespace lockwait

// While one lives, this thread's walks make no checks (yield nowhere): for work a yield would leave
// partway on what is not the held grammar's alone (ShapeCache, shared by the vocabulary's grammars:
// a yield inside it left a grammar holding a null shape, which its next measure dereferenced).
class NoYield {
 public:
  NoYield() : prev_(lockwait::yieldOn) { lockwait::yieldOn = nullptr; }
  ~NoYield() { lockwait::yieldOn = prev_; }
  NoYield(const NoYield&) = delete;
  NoYield& operator=(const NoYield&) = delete;

 private:
  const std::atomic<int>* prev_;
};

// The lock with its holder's kind and its waiting callers.
class GrammarLock {
 public:
  // A caller: goes before the prefetch thread (counted in waiting_ while it waits). `joining()`:
  // true while the prefetch thread makes the work this caller is about to do; it is then let
  // finish (checked every 50 µs), and interrupted as any other once it has moved on.
  template <typename Joining>
  void lockForeground(Joining&& joining) {
    if (mu_.try_lock()) return;
    const auto t0 = std::chrono::steady_clock::now();
    bool joined = false;
    while (backgroundHolds_.load() && joining()) {
      joined = true;
      {
        // Woken when the prefetch thread lets go or moves on (notifyJoiners); the timeout only
        // bounds a wake-up missed between the check and the wait.
        std::unique_lock<std::mutex> wait(joinMu_);
        join_.wait_for(wait, std::chrono::milliseconds(1), [&] { return !backgroundHolds_.load() || !joining(); });
      }
      if (mu_.try_lock()) return count(t0, Kind::Join);
    }
    waiting_.fetch_add(1);
    mu_.lock();
    waiting_.fetch_sub(1);
    // Who let go last is who this caller waited for at the end: the prefetch thread (a handoff,
    // however long it took to be on a CPU again to let go) or another caller (a wait on its work).
    // This thread itself there: try_lock failed with no holder (it may), nothing was waited for.
    const bool noWork = releasedBy_ == &kPrefetch || releasedBy_ == &lockwait::threadTag;
    count(t0, joined ? Kind::Join : noWork ? Kind::Handoff : Kind::Wait);
  }
  void lockForeground() {
    lockForeground([] { return false; });
  }
  // The prefetch thread: false (nothing taken) while a caller waits or holds the lock.
  bool tryLockBackground() {
    if (waiting_.load() > 0 || !mu_.try_lock()) return false;
    lockwait::pauseIfAsked();
    backgroundHolds_ = true;
    lockwait::yieldOn = &waiting_;
    return true;
  }
  void unlockBackground() {
    lockwait::yieldOn = nullptr;
    backgroundHolds_ = false;
    lockwait::pauseIfAsked();
    releasedBy_ = &kPrefetch;
    mu_.unlock();
    notifyJoiners();
  }
  // Wakes callers letting the prefetch thread finish a step (lockForeground's `joining`) to look again.
  void notifyJoiners() {
    { std::lock_guard<std::mutex> l(joinMu_); }
    join_.notify_all();
  }
  void unlock() {
    releasedBy_ = &lockwait::threadTag;
    mu_.unlock();
  }
  bool tryLock() { return mu_.try_lock(); }
  int waiting() const { return waiting_.load(); }

 private:
  enum class Kind { Wait, Handoff, Join };
  static void count(std::chrono::steady_clock::time_point t0, Kind kind) {
    LockWaits* c = lockwait::counting;
    if (!c) return;
    (kind == Kind::Join ? c->joins : kind == Kind::Handoff ? c->handoffs : c->waits)++;
    c->waitNanos +=
        uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }

  static constexpr char kPrefetch = 0;  // its address: the prefetch thread let go last

  std::mutex mu_;
  std::atomic<int> waiting_{0};
  std::atomic<bool> backgroundHolds_{false};
  const void* releasedBy_ = nullptr;  // under mu_: the last holder (a thread's tag, or &kPrefetch)
  std::mutex joinMu_;                 // for join_ alone
  std::condition_variable join_;
};

}  // namespace toolmask
