// The resident representation of the backend mask (TOOLMASK_BACKEND_MASK=resident): the masks of
// the grammar states a sequence reaches live in a table in the buffer type llama.cpp gives
// backend_init (the device that holds the logits), one row per state, uploaded once when the state
// is first reached (ggml_backend_tensor_set of that row only). Each step the host writes only the
// row's index (one I32); the graph gathers the row (ggml_get_rows), unpacks it (mask_unpack.hpp)
// and adds it to the logits.
//
// A state is the compiled grammar's DFA state (Matcher::state()): its id is stable for the
// grammar's life (CompiledGrammar drops cached masks past its table budget, never states) and its
// mask is a function of it. Row 0 masks nothing (a dead end, which the CPU path and the other
// representations leave alone and report). A step whose mask the token budget changed
// (CompiledGrammar::limitToBudget; only within kFinishHorizon tokens of the end, outside a call)
// gets a row of its own, kept per state while the limited mask stays the same. Row 1 is rewritten
// whole when used: the graph in use was built before the table grew (see below), or no table could
// be allocated.
//
// Growth: llama.cpp reuses a built graph while the samplers and the batch's shape stay the same,
// and a reused graph reads the table tensor it was built with. A full table is therefore never
// resized in place: a table twice its size is allocated and the rows copied over, the old one stays
// alive, and until llama.cpp next builds a graph (backend_apply) a state whose row exists only in
// the new table goes through the old table's row 1. Tables older than the newest are freed in
// backend_apply: llama.cpp drops its previous graph before it builds (llm_graph_result::reset in
// process_ubatch, gf_res_prev->reset in graph_reserve), so no graph that reads them is left.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "llama_api.hpp"
#include "mask_sampler.hpp"
#include "toolmask/matcher.hpp"

namespace toolmask::llama {

class ResidentTable {
 public:
  static constexpr int64_t kBits = 24;        // mask bits per F32 word (exact below 2^24)
  static constexpr uint32_t kFirstRows = 64;  // the first table's rows; each growth doubles them
  static constexpr uint32_t kAllowAllRow = 0, kAdHocRow = 1, kReservedRows = 2;

  // Null when the table cannot be allocated in `buft`. `stats` (MaskTableStats in MaskStats) is
  // kept up to date; it must outlive the table.
  static std::unique_ptr<ResidentTable> create(const Api& a, ggml_backend_buffer_type_t buft, uint32_t vocabSize,
                                               MaskStats* stats);
  ~ResidentTable();
  ResidentTable(const ResidentTable&) = delete;
  ResidentTable& operator=(const ResidentTable&) = delete;

  // backend_apply: the masked logits. Logits of another width than the vocabulary (chain init
  // probes with 1,048,576 fake ones; the graph is never run) get the same ops over a one-row table
  // that is a per-graph input, filled with the whole mask every step.
  ggml_tensor* apply(ggml_context* ctx, ggml_tensor* logits);
  // backend_set_input: the row for the matcher's next step (uploaded first when the state is new),
  // its index written to the graph's input. `bitmask` is scratch of the vocabulary's 32-bit words.
  // False when the current graph has no input of this table's (nothing written).
  bool setInput(Matcher& m, uint32_t tokensLeft, std::vector<uint32_t>& bitmask);
  // backend_reset: the graph's inputs are gone.
  void resetGraph();

 private:
  struct Table {
    ggml_context* ctx = nullptr;
    ggml_backend_buffer_t buffer = nullptr;
    ggml_tensor* rows = nullptr;    // F32 [words, capacity]
    ggml_tensor* scales = nullptr;  // F32 [2 · kBits] (packScales)
    uint32_t capacity = 0;
    uint32_t filled = 0;  // rows written: [0, filled)
  };

  ResidentTable(const Api& a, ggml_backend_buffer_type_t buft, uint32_t vocabSize, MaskStats* stats);
  std::unique_ptr<Table> allocate(uint32_t capacity);
  void freeTable(Table& t);
  void upload(Table& t, uint32_t row, const float* words);
  bool grow();
  uint32_t newRow(const std::vector<uint32_t>& mask);  // in the newest table (kAdHocRow: no room)
  uint32_t rowOf(Matcher& m, std::vector<uint32_t>& bitmask);
  uint32_t budgetRowOf(int32_t state, const std::vector<uint32_t>& mask);
  void setPerGraphInput(Matcher& m, uint32_t tokensLeft, std::vector<uint32_t>& bitmask);
  void publish();

  const Api& a_;
  ggml_backend_buffer_type_t buft_;
  const uint32_t vocabSize_;
  const size_t words_;  // per row: ceil(vocabSize / kBits)
  MaskStats* stats_;
  int64_t rowOffset_ = 0;                        // TOOLMASK_TEST_ROW_OFFSET (a test hook): added to every row index
  std::vector<std::unique_ptr<Table>> tables_;   // back(): the newest, where new rows go
  Table* graphTable_ = nullptr;                  // the table the current graph reads
  std::unordered_map<int32_t, uint32_t> rowOf_;  // DFA state → row (kAllowAllRow for a dead end)
  struct Variant {
    uint32_t row;
    std::vector<uint32_t> mask;
  };
  std::unordered_map<int32_t, Variant> budgetRowOf_;  // DFA state → its last budget-limited mask's row
  std::vector<float> staging_;
  // The current graph's inputs: the row index; with logits of another width, the one-row table and scales.
  ggml_tensor* index_ = nullptr;
  ggml_tensor* inputRow_ = nullptr;
  ggml_tensor* inputScales_ = nullptr;
};

}  // namespace toolmask::llama
