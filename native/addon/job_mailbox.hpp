// What the decode thread hands the JS thread for one generation: sampled tokens, then exactly one
// end (a result or an error). Producers call from the decode thread; the JS thread drains. Knows
// nothing of Node, so the handoff protocol is tested on its own (native/tests/job_mailbox_tests.cpp).
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
    bool ended = false;
    std::optional<Result> result;  // set when ended with a result
    std::string error;             // when ended without one
  };

  // Decode thread.
  void pushToken(int32_t t) {
    std::lock_guard<std::mutex> lock(mutex_);
    tokens_.push_back(t);
  }
  void finish(Result r) {
    std::lock_guard<std::mutex> lock(mutex_);
    result_ = std::move(r);
    ended_ = true;
  }
  void fail(std::string why) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::move(why);
    ended_ = true;
  }
  // After a producer call: true when the caller must schedule a drain (none is pending).
  bool claimDrain() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (scheduled_) return false;  // the pending drain will take what was just added
    scheduled_ = true;
    return true;
  }

  // JS thread, in a scheduled drain.
  Batch take() {
    std::lock_guard<std::mutex> lock(mutex_);
    Batch b;
    b.tokens.swap(tokens_);
    scheduled_ = false;
    b.ended = ended_;
    if (ended_) {
      b.result = result_;
      b.error = error_;
    }
    return b;
  }

 private:
  std::mutex mutex_;
  std::vector<int32_t> tokens_;
  bool scheduled_ = false;
  bool ended_ = false;
  std::optional<Result> result_;
  std::string error_;
};

}  // namespace toolmask::addon
