// What the decode thread hands the JS thread for one generation: sampled tokens, then exactly one
// end (a result or an error). Producers call from the decode thread; the JS thread drains. Knows
// nothing of Node, so the handoff protocol is tested on its own (native/tests/job_mailbox_tests.cpp).
//
// Protocol: each producer call records its item and, in the same critical section, decides whether
// a drain must be scheduled (none is pending). A drain takes everything recorded so far; the drain
// that first sees the end settles the job, and nothing is scheduled after that. So at most one
// drain is pending at a time, and exactly one drain settles.
#pragma once
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace toolmask::addon {

template <typename Result>
class JobMailbox {
 public:
  // What one drain takes: tokens sampled since the last drain, and the end once it has come.
  struct Batch {
    std::vector<int32_t> tokens;
    bool settle = false;           // this drain ends the job (true for exactly one drain)
    std::optional<Result> result;  // with settle: the result, or none when it ended in error
    std::string error;
  };

  // Decode thread. Each returns true when the caller must schedule a drain.
  bool pushToken(int32_t t) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_) return false;  // nothing comes after the end
    tokens_.push_back(t);
    return claim();
  }
  bool finish(Result r) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_) return false;
    result_ = std::move(r);
    ended_ = true;
    return claim();
  }
  bool fail(std::string why) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_) return false;
    error_ = std::move(why);
    ended_ = true;
    return claim();
  }

  // JS thread, in a scheduled drain.
  Batch take() {
    std::lock_guard<std::mutex> lock(mutex_);
    Batch b;
    b.tokens.swap(tokens_);
    scheduled_ = false;
    if (ended_ && !settled_) {
      settled_ = true;
      b.settle = true;
      b.result = std::move(result_);
      b.error = std::move(error_);
    }
    return b;
  }

 private:
  bool claim() {                   // under mutex_
    if (scheduled_) return false;  // the pending drain will take what was just added
    scheduled_ = true;
    return true;
  }

  std::mutex mutex_;
  std::vector<int32_t> tokens_;
  bool scheduled_ = false;  // a drain is scheduled and has not taken yet
  bool ended_ = false;
  bool settled_ = false;
  std::optional<Result> result_;
  std::string error_;
};

}  // namespace toolmask::addon
