#include "shape_cache.hpp"

#include "grammar_lock.hpp"

namespace toolmask {

namespace {
// 1/16 of the grammar budget's default (src/grammar/cache.ts sets it with the budget).
std::atomic<size_t> processIdle{size_t(16) << 20};
}  // namespace

void ShapeCache::setProcessIdleBytes(size_t bytes) { processIdle = bytes; }
size_t ShapeCache::processIdleBytes() { return processIdle; }

size_t Shape::memoryBytes() {
  std::lock_guard<std::mutex> lock(mu);
  return memoryBytesLocked();
}

size_t Shape::memoryBytesLocked() const {
  size_t total = heapBlock(sizeof(*this) + 16) + (dfa ? heapBlock(sizeof(LazyDfa)) + dfa->memoryBytes() : 0);
  for (auto& e : memo)
    total += hashNodeBytes(sizeof(e)) + vectorBytes(e.second.rejected) + vectorBytes(e.second.uncertain);
  for (auto& e : itemsUsed)
    total += hashNodeBytes(sizeof(e)) + vectorBytes(e.second.byPosition) + vectorBytes(e.second.several);
  return total;
}

std::shared_ptr<Shape> ShapeCache::get(const std::string& key, size_t maxBytes,
                                       const std::function<std::unique_ptr<LazyDfa>()>& build) {
  // The measures below walk shapes' states: on the prefetch thread they make no checks, so the
  // cache is never left partway (grammar_lock.hpp).
  const NoYield whole;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      std::shared_ptr<Shape> s = it->second.shape;
      if (s->memoryBytes() <= maxBytes) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        hits_++;
        return s;
      }
      lru_.erase(it->second.lru);
      entries_.erase(it);
    }
  }
  // Built outside the cache's lock: other grammars' shapes are not held up by this one.
  auto s = std::make_shared<Shape>();
  s->dfa = build();
  std::lock_guard<std::mutex> lock(mu_);
  misses_++;
  auto it = entries_.find(key);
  if (it != entries_.end()) {  // another grammar built it meanwhile: share theirs
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return it->second.shape;
  }
  lru_.push_front(key);
  entries_.emplace(key, Entry{s, lru_.begin()});
  trimLocked();
  return s;
}

std::vector<std::pair<std::list<std::string>::iterator, size_t>> ShapeCache::idleLocked() {
  std::vector<std::pair<std::list<std::string>::iterator, size_t>> idle;
  for (auto k = lru_.begin(); k != lru_.end(); ++k) {
    const Entry& e = entries_.at(*k);
    if (e.shape.use_count() == 1) idle.emplace_back(k, e.shape->memoryBytes());
  }
  return idle;
}

void ShapeCache::trimLocked() {
  // Idle shapes (held by the cache alone) from the least recently used, until the rest fit.
  auto idle = idleLocked();
  size_t total = 0;
  for (auto& i : idle) total += i.second;
  const size_t limit = ownLimit_ ? maxIdleBytes_ : processIdle.load();
  for (auto i = idle.rbegin(); i != idle.rend() && total > limit; ++i) {
    total -= i->second;
    entries_.erase(*i->first);
    lru_.erase(i->first);
  }
}

void ShapeCache::trim() {
  const NoYield whole;  // as in get(): also called from destructors, which must not throw
  std::lock_guard<std::mutex> lock(mu_);
  trimLocked();
}

void ShapeCache::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  lru_.clear();
}

size_t ShapeCache::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

size_t ShapeCache::hits() {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

size_t ShapeCache::misses() {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

size_t ShapeCache::idleBytes() {
  const NoYield whole;
  std::lock_guard<std::mutex> lock(mu_);
  size_t total = 0;
  for (auto& i : idleLocked()) total += i.second;
  return total;
}

}  // namespace toolmask
