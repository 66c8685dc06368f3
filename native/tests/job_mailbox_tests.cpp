// The decode-thread → JS-thread handoff of one generation (native/addon/job_mailbox.hpp), without
// Node: every interleaving of the producer's steps with the drains they schedule must deliver the
// tokens in order and settle the job exactly once, with no drain after the settling one (a drain
// then would resolve a freed promise and call a released thread-safe function). Then a stress run
// on real threads, for ThreadSanitizer (`npm run test:native:sanitize`).
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "../addon/job_mailbox.hpp"

using toolmask::addon::JobMailbox;

static int failures = 0;
#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::printf(__VA_ARGS__);                                   \
      std::printf("\n");                                          \
      failures++;                                                 \
    }                                                             \
  } while (0)

struct Result {
  int tokens = 0;
};
using Box = JobMailbox<Result>;

// The steps the decode thread takes for one job that samples `n` tokens and ends; `schedule()` is
// what the engine's callback does when the mailbox says a drain must be scheduled.
static std::vector<std::function<void(Box&, const std::function<void()>&)>> producerSteps(int n) {
  std::vector<std::function<void(Box&, const std::function<void()>&)>> steps;
  for (int i = 1; i <= n; i++)
    steps.push_back([i](Box& b, const std::function<void()>& schedule) {
      if (b.pushToken(i)) schedule();
    });
  steps.push_back([n](Box& b, const std::function<void()>& schedule) {
    if (b.finish(Result{n})) schedule();
  });
  return steps;
}

struct Outcome {
  int settled = 0;
  int drainsAfterSettle = 0;
  std::vector<int32_t> delivered;
};

// Replays one interleaving: choice k = 0 runs the next producer step, 1 runs the oldest pending drain.
static bool replay(int n, const std::vector<int>& choices, Outcome& out, bool& complete) {
  Box box;
  auto steps = producerSteps(n);
  size_t next = 0;
  int pending = 0;
  auto schedule = [&] { pending++; };
  auto drain = [&] {
    pending--;
    auto batch = box.take();
    if (out.settled > 0) out.drainsAfterSettle++;
    out.delivered.insert(out.delivered.end(), batch.tokens.begin(), batch.tokens.end());
    if (batch.settle) out.settled++;
  };
  for (int c : choices) {
    if (c == 0) {
      if (next >= steps.size()) return false;
      steps[next++](box, schedule);
    } else {
      if (pending == 0) return false;
      drain();
    }
  }
  complete = next == steps.size() && pending == 0;
  return true;
}

static void exploreInterleavings(int n) {
  size_t paths = 0, bad = 0;
  std::vector<int> choices;
  std::function<void()> dfs = [&] {
    for (int c = 0; c < 2; c++) {
      choices.push_back(c);
      Outcome o;
      bool complete = false;
      if (replay(n, choices, o, complete)) {
        if (complete) {
          paths++;
          std::vector<int32_t> want;
          for (int i = 1; i <= n; i++) want.push_back(i);
          bool ok = o.settled == 1 && o.drainsAfterSettle == 0 && o.delivered == want;
          if (!ok && bad++ == 0) {
            std::printf("  interleaving (0 = producer step, 1 = drain):");
            for (int x : choices) std::printf(" %d", x);
            std::printf("\n  settled %d times, %d drains after settling, %zu tokens delivered\n", o.settled,
                        o.drainsAfterSettle, o.delivered.size());
          }
        } else {
          dfs();
        }
      }
      choices.pop_back();
    }
  };
  dfs();
  CHECK(bad == 0, "%zu of %zu interleavings of a %d-token job settle it other than exactly once", bad, paths, n);
  std::printf("interleavings of a %d-token job: %zu explored\n", n, paths);
}

// Real threads: one producer runs many short jobs back to back, one consumer drains as a JS thread
// would (FIFO); every job settles exactly once with all its tokens.
static void stress(int jobs) {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Box*> queue;
  std::vector<Box> boxes(static_cast<size_t>(jobs));
  std::vector<int> settled(size_t(jobs), 0), delivered(size_t(jobs), 0), late(size_t(jobs), 0);
  bool producing = true;
  std::thread consumer([&] {
    for (;;) {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return !queue.empty() || !producing; });
      if (queue.empty()) return;
      Box* b = queue.front();
      queue.pop_front();
      lock.unlock();
      size_t i = size_t(b - boxes.data());
      auto batch = b->take();
      if (settled[i]) late[i]++;
      delivered[i] += int(batch.tokens.size());
      if (batch.settle) settled[i]++;
    }
  });
  for (int j = 0; j < jobs; j++) {
    Box* b = &boxes[size_t(j)];
    auto schedule = [&] {
      {
        std::lock_guard<std::mutex> lock(mu);
        queue.push_back(b);
      }
      cv.notify_one();
    };
    for (auto& step : producerSteps(1 + j % 3)) step(*b, schedule);
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    producing = false;
  }
  cv.notify_all();
  consumer.join();
  int wrong = 0;
  for (int j = 0; j < jobs; j++)
    if (settled[size_t(j)] != 1 || late[size_t(j)] != 0 || delivered[size_t(j)] != 1 + j % 3) wrong++;
  CHECK(wrong == 0, "%d of %d jobs on real threads settled other than exactly once with all their tokens", wrong, jobs);
  std::printf("stress: %d jobs on two threads\n", jobs);
}

int main() {
  for (int n = 0; n <= 3; n++) exploreInterleavings(n);
  stress(20000);
  if (failures) {
    std::printf("%d failure(s)\n", failures);
    return 1;
  }
  std::printf("job mailbox: all checks passed\n");
  return 0;
}
