// How the decode thread's contended takes of a grammar's lock are counted (grammar_lock.hpp): a
// hold of another caller is a wait; the prefetch thread's hold is a handoff, also when that thread
// stands off the CPU just after it took the lock or just before it lets go (lockwait::pauseAtHandover
// puts it there), where the hold is not yet or no longer marked as the prefetch thread's.
#include <atomic>
#include <chrono>
#include <thread>

#include "../core/grammar_lock.hpp"
#include "check.hpp"

using namespace toolmask;
using std::chrono::milliseconds;

namespace {

// The counts of one lockForeground() on this thread, made while `holder` (started first) holds the
// lock: `holder` gets `held` to set once it holds and may then let go.
template <typename Holder>
LockWaits countedTake(GrammarLock& lock, Holder&& holder) {
  std::atomic<bool> held{false};
  std::thread t([&] { holder(held); });
  while (!held.load()) std::this_thread::yield();
  std::this_thread::sleep_for(milliseconds(20));  // the holder is in its pause or its work now
  LockWaits counts{};
  lockwait::counting = &counts;
  lock.lockForeground();
  lockwait::counting = nullptr;
  lock.unlock();
  t.join();
  return counts;
}

}  // namespace

void lockKindTests() {
  GrammarLock lock;
  // Another caller's work: a wait.
  LockWaits c = countedTake(lock, [&](std::atomic<bool>& held) {
    lock.lockForeground();
    held = true;
    std::this_thread::sleep_for(milliseconds(200));
    lock.unlock();
  });
  CHECK(c.waits == 1 && c.handoffs == 0);

  // The prefetch thread paused just before it lets go (its hold no longer marked): a handoff.
  c = countedTake(lock, [&](std::atomic<bool>& held) {
    CHECK(lock.tryLockBackground());
    held = true;
    lockwait::pauseAtHandover = milliseconds(200);
    lock.unlockBackground();
    lockwait::pauseAtHandover = milliseconds(0);
  });
  CHECK(c.waits == 0);
  CHECK(c.handoffs == 1);

  // Paused just after it took the lock (its hold not yet marked), then let go at its next check.
  c = countedTake(lock, [&](std::atomic<bool>& held) {
    lockwait::pauseAtHandover = milliseconds(200);
    std::thread mark([&] {
      std::this_thread::sleep_for(milliseconds(5));
      held = true;  // the lock is taken by now; the pause goes on
    });
    CHECK(lock.tryLockBackground());
    lockwait::pauseAtHandover = milliseconds(0);
    mark.join();
    while (lock.waiting() == 0) std::this_thread::yield();  // a walk's check finds the caller
    lock.unlockBackground();
  });
  CHECK(c.waits == 0);
  CHECK(c.handoffs == 1);
}
