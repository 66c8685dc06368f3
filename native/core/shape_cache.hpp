// Loop fragments' automata and masks (free text, string contents, numbers, whitespace), kept per
// vocabulary rather than per grammar: every grammar compiled for one vocabulary that uses a shape
// shares its masks, so the second grammar with the same shape pays nothing for them.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dfa.hpp"
#include "mask.hpp"

namespace toolmask {

// One fragment shape: its own automaton over the fragment's NFA, its states' masks and the trie
// walks they share. Grammars on several threads use one Shape: take `mu` for every read or
// change of what follows it, after the grammar's own lock and never before it. A mask once built
// is never changed or freed while the Shape lives, so grammars keep pointers to it.
struct Shape {
  std::mutex mu;
  std::unique_ptr<LazyDfa> dfa;
  SubtreeMemo memo;  // first-byte subtrees, shared by the shape's states
  struct ItemsUsed {
    std::vector<uint8_t> byPosition;  // items each token uses, by sorted-token position (0: refused)
    uint8_t max = 0;
    std::vector<uint32_t> several;  // the positions of the tokens that use more than one item, ascending
  };
  std::unordered_map<int32_t, ItemsUsed> itemsUsed;  // per loop state (bounded repetitions)

  size_t memoryBytesLocked() const;
  size_t memoryBytes();  // takes mu
};

class ShapeCache {
 public:
  // Shapes no grammar holds are kept while their tables stay under `maxIdleBytes` together, the
  // least recently used dropped first. Without it, the process-wide limit (setProcessIdleBytes).
  ShapeCache() = default;
  explicit ShapeCache(size_t maxIdleBytes) : ownLimit_(true), maxIdleBytes_(maxIdleBytes) {}

  // The idle limit of every cache made without one of its own (default 16 MiB); each trims to it
  // the next time a grammar lets go of a shape or takes one.
  static void setProcessIdleBytes(size_t bytes);
  static size_t processIdleBytes();

  // The shape for `key`, its automaton made by `build` when the cache has none. A cached shape
  // whose tables have grown past `maxBytes` is not handed out again: a fresh one takes its place
  // (grammars holding the old one keep it until they let go), so a grammar that drops its tables
  // for its own memory bound gets shapes no larger than that bound.
  std::shared_ptr<Shape> get(const std::string& key, size_t maxBytes,
                             const std::function<std::unique_ptr<LazyDfa>()>& build);

  // Drops idle shapes, least recently used first, until the idle ones fit maxIdleBytes (a grammar
  // calls it when it lets go of its shapes).
  void trim();
  void clear();  // drops every cached shape (grammars holding one keep it)
  size_t size();
  size_t hits();
  size_t misses();
  size_t idleBytes();  // tables of the shapes no grammar holds

 private:
  struct Entry {
    std::shared_ptr<Shape> shape;
    std::list<std::string>::iterator lru;
  };
  void trimLocked();
  // The shapes no grammar holds, most recently used first, with their table bytes.
  std::vector<std::pair<std::list<std::string>::iterator, size_t>> idleLocked();

  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> lru_;  // most recently handed out first
  bool ownLimit_ = false;
  size_t maxIdleBytes_ = 0;
  size_t hits_ = 0, misses_ = 0;
};

}  // namespace toolmask
