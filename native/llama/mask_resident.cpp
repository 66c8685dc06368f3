#include "mask_resident.hpp"

#include <algorithm>
#include <cstdlib>

#include "mask_unpack.hpp"

namespace toolmask::llama {

std::unique_ptr<ResidentTable> ResidentTable::create(const Api& a, ggml_backend_buffer_type_t buft, uint32_t vocabSize,
                                                     MaskStats* stats) {
  std::unique_ptr<ResidentTable> t(new ResidentTable(a, buft, vocabSize, stats));
  // A test hook: a smaller first table, so that a short generation grows it (never set it otherwise).
  const char* rows = std::getenv("TOOLMASK_TEST_TABLE_ROWS");
  const long long firstRows = rows && *rows ? std::strtoll(rows, nullptr, 10) : kFirstRows;
  std::unique_ptr<Table> first = t->allocate(uint32_t(std::clamp<long long>(firstRows, kReservedRows + 1, 1 << 20)));
  if (!first) return nullptr;
  t->tables_.push_back(std::move(first));
  t->graphTable_ = t->tables_.back().get();
  t->publish();
  return t;
}

ResidentTable::ResidentTable(const Api& a, ggml_backend_buffer_type_t buft, uint32_t vocabSize, MaskStats* stats)
    : a_(a), buft_(buft), vocabSize_(vocabSize), words_((size_t(vocabSize) + kBits - 1) / kBits), stats_(stats) {
  // A test hook: a wrong row index on purpose (test/test-model/llama-backend.test.ts shows that the
  // tests see it). Never set it otherwise. Read with TOOLMASK_TEST_TABLE_ROWS when the chain is attached.
  const char* offset = std::getenv("TOOLMASK_TEST_ROW_OFFSET");
  if (offset && *offset) rowOffset_ = std::strtoll(offset, nullptr, 10);
  staging_.resize(words_ * 2);
}

ResidentTable::~ResidentTable() {
  for (auto& t : tables_) freeTable(*t);
}

std::unique_ptr<ResidentTable::Table> ResidentTable::allocate(uint32_t capacity) {
  auto t = std::make_unique<Table>();
  const ggml_init_params params = {2 * a_.ggml_tensor_overhead(), nullptr,
                                   true};  // no_alloc: the buffer holds the data
  t->ctx = a_.ggml_init(params);
  if (!t->ctx) return nullptr;
  t->rows = a_.ggml_new_tensor_2d(t->ctx, GGML_TYPE_F32, int64_t(words_), int64_t(capacity));
  t->scales = a_.ggml_new_tensor_1d(t->ctx, GGML_TYPE_F32, 2 * kBits);
  a_.ggml_set_name(t->rows, "toolmask_mask_table");
  a_.ggml_set_name(t->scales, "toolmask_mask_scales");
  t->buffer = a_.ggml_backend_alloc_ctx_tensors_from_buft(t->ctx, buft_);
  if (!t->buffer) {
    freeTable(*t);
    return nullptr;
  }
  t->capacity = capacity;
  float scales[2 * kBits];
  packScales(scales, kBits);
  a_.ggml_backend_tensor_set(t->scales, scales, 0, sizeof(scales));
  packAllowAll(staging_.data(), words_, kBits);
  upload(*t, kAllowAllRow, staging_.data());
  upload(*t, kAdHocRow, staging_.data());  // written before each use; never read uninitialised
  t->filled = kReservedRows;
  return t;
}

void ResidentTable::freeTable(Table& t) {
  if (t.buffer) a_.ggml_backend_buffer_free(t.buffer);
  if (t.ctx) a_.ggml_free(t.ctx);
  t = Table{};
}

void ResidentTable::upload(Table& t, uint32_t row, const float* words) {
  const size_t bytes = words_ * sizeof(float);
  a_.ggml_backend_tensor_set(t.rows, words, size_t(row) * bytes, bytes);
}

bool ResidentTable::grow() {
  Table& old = *tables_.back();
  std::unique_ptr<Table> next = allocate(old.capacity * 2);
  if (!next) return false;
  // Rows move through the host: growth is rare (the rows double), and a copy inside one buffer
  // type needs no backend of its own this way.
  std::vector<float> rows(size_t(old.filled) * words_);
  a_.ggml_backend_tensor_get(old.rows, rows.data(), 0, rows.size() * sizeof(float));
  a_.ggml_backend_tensor_set(next->rows, rows.data(), 0, rows.size() * sizeof(float));
  next->filled = old.filled;
  tables_.push_back(std::move(next));  // the old one stays: the current graph may read it
  stats_->table.growths++;
  publish();
  return true;
}

ggml_tensor* ResidentTable::apply(ggml_context* ctx, ggml_tensor* logits) {
  index_ = a_.ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
  a_.ggml_set_name(index_, "toolmask_mask_row");
  a_.ggml_set_input(index_);
  inputRow_ = inputScales_ = nullptr;
  ggml_tensor* table;
  ggml_tensor* scales;
  const int64_t n = a_.ggml_nelements(logits);
  if (n == int64_t(vocabSize_)) {
    // llama.cpp dropped its previous graph before building this one: older tables have no reader.
    for (size_t i = 0; i + 1 < tables_.size(); i++) freeTable(*tables_[i]);
    tables_.erase(tables_.begin(), tables_.end() - 1);
    graphTable_ = tables_.back().get();
    table = graphTable_->rows;
    scales = graphTable_->scales;
  } else {
    const int64_t words = (n + kBits - 1) / kBits;
    inputRow_ = a_.ggml_new_tensor_2d(ctx, GGML_TYPE_F32, words, 1);
    inputScales_ = a_.ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2 * kBits);
    a_.ggml_set_name(inputRow_, "toolmask_mask_row_input");
    a_.ggml_set_name(inputScales_, "toolmask_mask_scales_input");
    a_.ggml_set_input(inputRow_);
    a_.ggml_set_input(inputScales_);
    table = inputRow_;
    scales = inputScales_;
  }
  ggml_tensor* row = a_.ggml_get_rows(ctx, table, index_);  // [words, 1]
  ggml_tensor* words = a_.ggml_reshape_2d(ctx, row, 1, table->ne[0]);
  return addPackedMask(a_, ctx, logits, words, scales, 0, kBits);
}

void ResidentTable::resetGraph() { index_ = inputRow_ = inputScales_ = nullptr; }

uint32_t ResidentTable::newRow(const std::vector<uint32_t>& mask) {
  if (tables_.back()->filled == tables_.back()->capacity && !grow()) return kAdHocRow;  // no room: ad hoc
  Table& t = *tables_.back();
  const uint32_t row = t.filled++;
  packBits(mask.data(), vocabSize_, staging_.data(), words_, kBits);
  upload(t, row, staging_.data());
  publish();
  return row;
}

uint32_t ResidentTable::rowOf(Matcher& m, std::vector<uint32_t>& bitmask) {
  const int32_t s = m.state();
  if (s < 0) return kAllowAllRow;  // terminated: nothing may follow (a dead end)
  const auto it = rowOf_.find(s);
  if (it != rowOf_.end()) return it->second;
  fillStateMask(m.grammar(), s, bitmask.data());
  if (std::all_of(bitmask.begin(), bitmask.end(), [](uint32_t w) { return w == 0; })) return rowOf_[s] = kAllowAllRow;
  const uint32_t row = newRow(bitmask);
  if (row == kAdHocRow) return row;
  stats_->table.stateRows++;
  return rowOf_[s] = row;
}

uint32_t ResidentTable::budgetRowOf(int32_t state, const std::vector<uint32_t>& mask) {
  stats_->table.budgetSteps++;
  // The budget clears the same openings for many steps in a row (all those with too few tokens
  // left for a call): the state's last budget-limited mask keeps its row while it stays the same.
  auto it = budgetRowOf_.find(state);
  if (it != budgetRowOf_.end() && it->second.mask == mask) return it->second.row;
  const uint32_t row = newRow(mask);
  if (row == kAdHocRow) return row;
  stats_->table.budgetRows++;
  budgetRowOf_[state] = Variant{row, mask};
  return row;
}

bool ResidentTable::setInput(Matcher& m, uint32_t tokensLeft, std::vector<uint32_t>& bitmask) {
  if (!index_) return false;
  if (inputRow_) {
    setPerGraphInput(m, tokensLeft, bitmask);
    return true;
  }
  uint32_t row = rowOf(m, bitmask);
  if (row == kAllowAllRow) {
    stats_->noTokenAllowed = true;  // the decode loop stops with an error, as on the other paths
  } else if (m.budgetMayLimit(tokensLeft)) {
    // The step's mask is the host path's exactly: the state's own, less what the budget leaves out.
    if (m.fillNextTokenBitmask(bitmask.data(), bitmask.size(), tokensLeft)) row = budgetRowOf(m.state(), bitmask);
  }
  if (row != kAllowAllRow && (row == kAdHocRow || row >= graphTable_->filled)) {
    // No room for a row, or the row exists only in a newer table than this graph's (it grew since
    // the graph was built): this step's mask goes into the graph's table's ad-hoc row.
    if (row != kAdHocRow) stats_->table.staleRows++;
    m.fillNextTokenBitmask(bitmask.data(), bitmask.size(), tokensLeft);
    packBits(bitmask.data(), vocabSize_, staging_.data(), words_, kBits);
    upload(*graphTable_, kAdHocRow, staging_.data());
    row = kAdHocRow;
  }
  const int64_t filled = graphTable_->filled;
  const int32_t index = int32_t(((int64_t(row) + rowOffset_) % filled + filled) % filled);
  a_.ggml_backend_tensor_set(index_, &index, 0, sizeof(index));
  return true;
}

void ResidentTable::setPerGraphInput(Matcher& m, uint32_t tokensLeft, std::vector<uint32_t>& bitmask) {
  m.fillNextTokenBitmask(bitmask.data(), bitmask.size(), tokensLeft);
  const size_t words = size_t(a_.ggml_nelements(inputRow_));
  staging_.resize(std::max(staging_.size(), words));
  if (std::all_of(bitmask.begin(), bitmask.end(), [](uint32_t w) { return w == 0; })) {
    stats_->noTokenAllowed = true;
    packAllowAll(staging_.data(), words, kBits);
  } else {
    packBits(bitmask.data(), vocabSize_, staging_.data(), words, kBits);
  }
  a_.ggml_backend_tensor_set(inputRow_, staging_.data(), 0, words * sizeof(float));
  float scales[2 * kBits];
  packScales(scales, kBits);
  a_.ggml_backend_tensor_set(inputScales_, scales, 0, sizeof(scales));
  const int32_t index = 0;
  a_.ggml_backend_tensor_set(index_, &index, 0, sizeof(index));
  stats_->table.inputSteps++;
}

void ResidentTable::publish() {
  const Table& t = *tables_.back();
  stats_->table.rows = t.filled;
  stats_->table.capacity = t.capacity;
  stats_->table.rowBytes = uint32_t(words_ * sizeof(float));
}

}  // namespace toolmask::llama
