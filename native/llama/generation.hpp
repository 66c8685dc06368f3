// What one generation asks for and what it gives back. The batching engine (batch_engine.hpp)
// runs it as one sequence of the model's shared llama_context.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llama_api.hpp"
#include "toolmask/grammar.hpp"
#include "toolmask/lock_waits.hpp"

namespace toolmask::llama {

struct SamplingParams {
  float temperature = 0.8f;  // <= 0: greedy
  int32_t topK = 40;         // <= 0: off
  float topP = 0.95f;        // 1: off
  float minP = 0.05f;        // 0: off
  uint32_t seed = 0;
  int32_t penaltyLastN = 64;
  float repeatPenalty = 1.0f;  // 1: off
  float frequencyPenalty = 0.0f;
  float presencePenalty = 0.0f;
  std::vector<llama_logit_bias> logitBias;
};

struct GenerationRequest {
  std::string prompt;           // rendered chat; special-token text in it is parsed as those tokens
  std::vector<int32_t> tokens;  // the prompt already tokenized (off the decode thread); empty: tokenize `prompt`
  int32_t maxTokens = 256;
  SamplingParams sampling;
  std::shared_ptr<CompiledGrammar> grammar;  // null: unmasked
  // Attach the chain to the context for this sequence: llama.cpp runs its samplers that have
  // backend hooks (the mask, top-k, top-p, min-p, temp, dist, greedy) as graph ops, on whatever
  // backend holds the logits.
  bool backendSampling = false;
  // Masked only: after each sampled token, the bytes the grammar forces next are tokenized with the
  // model's tokenizer and appended without sampling, decoded in the next step's batch with the
  // sampled token (native/core/include/toolmask/fast_forward.hpp says which tokens are taken).
  bool fastForward = false;
  // Record each step's host work for this sequence (sampling, the mask, fast-forward) in
  // GenerationResult::stepHostMicros (benchmarks).
  bool recordStepTimes = false;
  // Reuse the KV cells an idle sequence slot holds for the longest common token prefix of this
  // prompt, and leave this sequence's cells (prompt and decoded output) in its slot when it ends.
  // false: the prompt is neither read from nor left in the cache (every token is decoded here).
  bool cachePrompt = true;
};

// The backend path's resident mask table (mask_resident.hpp); all zero for other representations.
struct MaskTableStats {
  uint32_t rows = 0;         // rows written in the newest table, the two reserved ones included
  uint32_t capacity = 0;     // rows allocated in it
  uint32_t rowBytes = 0;     // bytes per row: ceil(vocabulary / 24) F32 words of 24 mask bits
  uint64_t stateRows = 0;    // states whose row was uploaded (once each)
  uint64_t budgetSteps = 0;  // steps whose mask the token budget changed (not the state's own row)
  uint64_t budgetRows = 0;   // of them, those that uploaded a row (a limited mask not seen before in that state)
  uint64_t staleRows = 0;    // steps that uploaded their mask into the ad-hoc row: the graph in use was built on a
                             // table without the state's row
  uint64_t growths = 0;      // times a table twice as large took over
  uint64_t inputSteps = 0;   // steps that uploaded the whole mask as a per-graph input (logits not vocabulary-wide)
};

struct GenerationResult {
  std::vector<llama_token> tokens;  // generated, including a final end-of-generation token
  std::string finishReason;         // "stop" (end of generation), "length", "aborted"
  int32_t promptTokens = 0;
  int32_t promptCachedTokens = 0;  // of them, those whose KV cells were reused, not decoded (cachePrompt)
  double queueMillis = 0;          // waiting for a free sequence slot
  double promptMillis = 0;         // from the first prompt chunk decoded to the last
  double decodeMillis = 0;         // from the first sampled token to the last
  uint64_t maskApplyCount = 0;
  uint64_t maskApplyNanos = 0;
  uint64_t maskBackendSteps = 0;  // steps whose mask ran inside the graph
  MaskTableStats maskTable;
  std::vector<int32_t> forcedAt;  // indices in tokens of those appended by fast-forward (not sampled)
  int32_t decodeSteps = 0;  // forward passes behind the output: one per sampled token (the prompt's last included),
                            // plus any without an output row
  std::vector<float>
      stepHostMicros;  // per sampled token, when recordStepTimes: from the decode's end to the next batch
  std::vector<float> stepHostCpuMicros;  // the same steps' CPU time on the decode thread (CLOCK_THREAD_CPUTIME_ID)
  std::vector<uint8_t> stepDecodeWork;   // per such step: 1 it built a state mask, 2 it walked for the budget
  LockWaits maskLockWaits;        // the grammar lock's contended acquisitions on the decode thread (grammar_lock.hpp)
  bool grammarComplete = false;   // masked only: the output is a complete sentence of the grammar
  int32_t tokensAfterAbort = -1;  // tokens sampled after the job was aborted (-1: it was not)
};

}  // namespace toolmask::llama
