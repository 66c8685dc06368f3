#include "until_table.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "heap_bytes.hpp"
#include "utf8.hpp"

namespace toolmask {

namespace {

std::atomic<size_t> built{0};

std::shared_ptr<const UntilTable> buildTable(const std::string& T, bool textOnly, bool trim) {
  built++;
  auto t = std::make_shared<UntilTable>();
  const size_t m = T.size();
  std::vector<size_t> back(m + 1, 0);
  for (size_t i = 1, k = 0; i < m; i++) {
    while (k && T[i] != T[k]) k = back[k];
    if (T[i] == T[k]) k++;
    back[i + 1] = k;
  }
  auto kmp = [&](size_t k, unsigned char b) {
    while (k && (unsigned char)T[k] != b) k = back[k];
    if ((unsigned char)T[k] == b) k++;
    return k;
  };
  // Complete code points inside T[0:k]: they are terminator, not text, if the match completes.
  t->prefChars.assign(m + 1, 0);
  for (size_t k = 1; k <= m; k++)
    t->prefChars[k] = t->prefChars[k - 1] + (((unsigned char)T[k - 1] & 0xC0) != 0x80 ? 1 : 0);

  std::vector<UntilTable::Base>& base = t->base;
  base.push_back({0, utf8::Boundary, 0});
  // (k, flags, phase) → base state; a phase is never Invalid here (such bytes make no run).
  std::vector<int32_t> baseOf((m + 1) * 8 * utf8::kPhases, -1);
  baseOf[0 * utf8::kPhases + utf8::Boundary] = 0;
  for (size_t i = 0; i < base.size(); i++) {
    const auto [k, ph, fl] = base[i];
    std::vector<UntilTable::Run> rs;
    for (int b = 0; b < 256; b++) {
      const uint8_t np = utf8::step(ph, uint8_t(b));
      if (np == utf8::Invalid) continue;
      const size_t nk = kmp(k, uint8_t(b));
      if (nk == m && textOnly) continue;  // the excluded string can never complete
      const bool completes = np == utf8::Boundary;
      uint8_t nf = 0;
      bool counts = completes;
      if (trim) {
        const bool started = fl & 1, lastNl = fl & 2, nlBefore = fl & 4;
        const bool lead = completes && !started && b == '\n';
        counts = completes && !lead;
        const bool nl = completes ? (b == '\n' && started) : lastNl;
        const bool before = nk == 1 ? lastNl : nk > 1 ? nlBefore : false;
        nf = uint8_t((started || completes ? 1 : 0) | (nl ? 2 : 0) | (before ? 4 : 0));
      }
      const bool pad = trim && (nk == 0 ? (nf & 2) : (nf & 4));
      int32_t to = -1;
      if (nk < m) {
        int32_t& slot = baseOf[(nk * 8 + nf) * utf8::kPhases + np];
        if (slot < 0) {
          slot = int32_t(base.size());
          base.push_back({nk, np, nf});
        }
        to = slot;
      }
      if (!rs.empty() && rs.back().hi == b - 1 && rs.back().to == to && rs.back().completes == completes &&
          rs.back().counts == counts && rs.back().pad == pad)
        rs.back().hi = uint8_t(b);
      else
        rs.push_back({uint8_t(b), uint8_t(b), to, completes, counts, pad});
    }
    t->runs.push_back(std::move(rs));
  }
  return t;
}

}  // namespace

size_t untilTableBytes(const UntilTable& t) {
  size_t total = sizeof(UntilTable) + vectorBytes(t.base) + vectorBytes(t.runs) + vectorBytes(t.prefChars);
  for (auto& rs : t.runs) total += vectorBytes(rs);
  return total;
}

std::shared_ptr<const UntilTable> untilTable(const std::string& T, bool textOnly, bool trim) {
  if (T.size() > kUntilTableKeptBytes) return buildTable(T, textOnly, trim);
  // Never destroyed: a thread still building a grammar as the process exits (the prefetch thread,
  // a compile on a worker) finds them whole whatever order the statics go in.
  static auto* mu = new std::mutex;
  static auto* kept = new std::unordered_map<std::string, std::shared_ptr<const UntilTable>>;
  static size_t keptBytes = 0;
  std::string key;
  key.reserve(T.size() + 1);
  key.push_back(char((textOnly ? 1 : 0) | (trim ? 2 : 0)));
  key += T;
  {
    std::lock_guard<std::mutex> lock(*mu);
    if (auto it = kept->find(key); it != kept->end()) return it->second;
  }
  auto t = buildTable(T, textOnly, trim);  // outside the lock: another thread may build the same
  const size_t bytes = untilTableBytes(*t) + key.capacity() + 64;
  std::lock_guard<std::mutex> lock(*mu);
  if (auto it = kept->find(key); it != kept->end()) return it->second;
  if (keptBytes + bytes > kUntilTablesKeptBytes) {
    kept->clear();
    keptBytes = 0;
  }
  keptBytes += bytes;
  return kept->emplace(std::move(key), std::move(t)).first->second;
}

size_t untilTablesBuilt() { return built; }

}  // namespace toolmask
