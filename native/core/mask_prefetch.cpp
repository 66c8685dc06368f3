#include "include/toolmask/mask_prefetch.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include "grammar.hpp"
#include "grammar_lock.hpp"

namespace toolmask {
namespace {

class Prefetcher {
 public:
  Prefetcher() : thread_([this] { run(); }) {}
  ~Prefetcher() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

  void push(std::shared_ptr<CompiledGrammar> g, int32_t state, uint32_t tokensLeft) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      // Only the newest requests matter: a state not built by now is asked for by sampling itself.
      if (queue_.size() >= kMaxQueued) queue_.pop_front();
      queue_.push_back({std::move(g), state, tokensLeft, 0});
      lockwait::jobsQueued = int(queue_.size());
    }
    wake_.notify_one();
  }

  void pushBackground(const std::shared_ptr<CompiledGrammar>& g) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (background_.size() >= kMaxQueued) background_.pop_front();
      background_.emplace_back(g);
    }
    wake_.notify_one();
  }

 private:
  static constexpr size_t kMaxQueued = 64;
  // Times a request is tried again after it let go of the lock (the step that needs it does the
  // rest itself meanwhile), and the pause before each try.
  static constexpr unsigned kMaxTries = 64;
  static constexpr std::chrono::microseconds kRetryPause{200};

  struct Job {
    std::shared_ptr<CompiledGrammar> grammar;
    int32_t state;
    uint32_t tokensLeft;
    unsigned tries;
  };

  // Background work never takes the CPU from the thread that woke it. Under Linux's default policy
  // a thread woken from a futex may preempt its waker when no CPU is idle: with one busy process
  // beside it on 2 cores, a compile that queued its precompute here (NativeGrammar's constructor)
  // and so woke this thread took 2.35 times as long as one that left it nothing to do (median over
  // the client tool sets, `npm run bench:idle-compile`). SCHED_BATCH (no wake-up preemption, the
  // same fair share, no privilege needed) leaves the waker on its CPU: 1.03 times. A decode thread
  // asking for a prefetch wakes it the same way. The name marks the thread in /proc
  // (native/tests/prefetch_thread_tests.cpp checks its policy there).
  static void runInBackground() {
#if defined(__linux__)
    pthread_setname_np(pthread_self(), kPrefetchThreadName);
    sched_param none{};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &none);
#endif
  }

  void run() {
    runInBackground();
    for (;;) {
      Job job{nullptr, 0, 0, 0};
      std::shared_ptr<CompiledGrammar> later;
      {
        std::unique_lock<std::mutex> lock(mu_);
        // wait_for, not wait: the prebuild must load with libstdc++ 3.4.29 (see batch_engine.cpp).
        while (!stop_ && queue_.empty() && background_.empty()) wake_.wait_for(lock, std::chrono::hours(1));
        // Every background grammar had a caller at its lock last turn, or the request in front
        // let go of its lock: let the callers have it a moment.
        if ((busyTurns_ > 0 && busyTurns_ >= background_.size() && queue_.empty()) || retryFront_) {
          wake_.wait_for(lock, kRetryPause);
          busyTurns_ = 0;
          retryFront_ = false;
        }
        if (stop_) return;
        if (!queue_.empty()) {  // a matcher's next state first: sampling may wait for it
          job = std::move(queue_.front());
          queue_.pop_front();
          lockwait::jobsQueued = int(queue_.size());
        } else {
          later = background_.front().lock();
          background_.pop_front();
        }
      }
      try {
        if (job.grammar) {
          if (job.grammar->prefetchStep(job.state, job.tokensLeft) == CompiledGrammar::Prefetch::Busy &&
              ++job.tries < kMaxTries) {
            std::lock_guard<std::mutex> lock(mu_);
            queue_.push_front(std::move(job));  // the newest request still, unless one came meanwhile
            lockwait::jobsQueued = int(queue_.size());
            retryFront_ = true;
          }
        } else if (later) {
          // A step of the precompute gives way to a mask asked for meanwhile, unless it gave way
          // kMaxJobYields times in a row (a mask that takes longer than the gaps between asks
          // would never be made).
          lockwait::yieldToJobs = jobYields_ < kMaxJobYields;
          const int asked = lockwait::jobsQueued.load();
          CompiledGrammar::Precompute r = later->precomputeStep();
          lockwait::yieldToJobs = false;
          std::lock_guard<std::mutex> lock(mu_);
          const bool forJob = r == CompiledGrammar::Precompute::Busy && !queue_.empty() && asked == 0;
          jobYields_ = forJob ? jobYields_ + 1 : r == CompiledGrammar::Precompute::Busy ? jobYields_ : 0;
          if (!forJob) busyTurns_ = r == CompiledGrammar::Precompute::Busy ? busyTurns_ + 1 : 0;
          if (r != CompiledGrammar::Precompute::Done)
            background_.emplace_back(later);  // its next turn after the others'
        }
      } catch (const std::exception&) {
        // A grammar past its limits: the decode thread meets the same error where it is reported.
      } catch (...) {
        // Nothing else is thrown here (Yielded is caught where it is thrown from); an exception
        // that left this thread would end the process.
      }
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::deque<std::weak_ptr<CompiledGrammar>> background_;  // grammars with precompute left
  static constexpr unsigned kMaxJobYields = 4;
  size_t busyTurns_ = 0;     // background turns in a row that found a caller at the grammar's lock
  unsigned jobYields_ = 0;   // precompute steps in a row that gave way to an asked-for mask
  bool retryFront_ = false;  // the request in front let go of its grammar's lock last turn
  bool stop_ = false;
  std::thread thread_;  // last: started once the rest exists
};

Prefetcher& prefetcher() {
  static Prefetcher p;
  return p;
}

}  // namespace

void precomputeInBackground(const std::shared_ptr<CompiledGrammar>& grammar) {
  if (grammar) prefetcher().pushBackground(grammar);
}

void prefetchMask(std::shared_ptr<CompiledGrammar> grammar, int32_t state, uint32_t tokensLeft) {
  // Most states are ready already: then the caller (on the decode thread) pays one lock, not a
  // queue hop and a wake-up of the prefetch thread.
  if (grammar && state >= 0 && !grammar->stepReady(state, tokensLeft))
    prefetcher().push(std::move(grammar), state, tokensLeft);
}

}  // namespace toolmask
