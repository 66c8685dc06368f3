// The native test programs' check: a failed condition is printed and counted, the program goes on.
#pragma once
#include <atomic>
#include <cstdio>

extern std::atomic<int> failures;
#define CHECK(cond)                                               \
  do {                                                            \
    if (!(cond)) {                                                \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                 \
    }                                                             \
  } while (0)
