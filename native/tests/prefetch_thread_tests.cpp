// The prefetch thread as the operating system sees it (mask_prefetch.hpp): on Linux, named
// kPrefetchThreadName and scheduled SCHED_BATCH, so that a compile or a decode step that wakes it
// keeps its CPU (under the default policy a woken thread preempts its waker when the other CPUs
// are busy). Elsewhere nothing is checked.
#include <memory>
#include <string>

#if defined(__linux__)
#include <dirent.h>
#include <sched.h>

#include <fstream>
#endif

#include "../core/grammar.hpp"
#include "../core/include/toolmask/mask_prefetch.hpp"
#include "check.hpp"

using namespace toolmask;

namespace {
#if defined(__linux__)
// The scheduling policy of this process's thread named `name`, or -1 when no thread has the name.
int policyOfThread(const std::string& name) {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return -1;
  int policy = -1;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string got;
    std::getline(comm, got);
    if (got == name) {
      policy = sched_getscheduler(pid_t(std::stoi(e->d_name)));
      break;
    }
  }
  closedir(dir);
  return policy;
}
#endif
}  // namespace

void prefetchThreadTests(const std::shared_ptr<const Vocabulary>& v, const std::string& ir) {
  CompileOptions later;
  later.precomputeLater = true;
  // The thread starts with the first grammar handed to it.
  precomputeInBackground(std::make_shared<CompiledGrammar>(ir, v, later));
#if defined(__linux__)
  CHECK(policyOfThread(kPrefetchThreadName) == SCHED_BATCH);
#endif
}
