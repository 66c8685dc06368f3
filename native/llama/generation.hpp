// What one generation asks for and what it gives back. The batching engine (batch_engine.hpp)
// runs it as one sequence of the model's shared llama_context.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../core/grammar.hpp"
#include "llama_api.hpp"

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
  // sampled token (native/core/fast_forward.hpp says which tokens are taken).
  bool fastForward = false;
  // Record each step's host work for this sequence (sampling, the mask, fast-forward) in
  // GenerationResult::stepHostMicros (benchmarks).
  bool recordStepTimes = false;
};

struct GenerationResult {
  std::vector<llama_token> tokens;  // generated, including a final end-of-generation token
  std::string finishReason;         // "stop" (end of generation), "length", "aborted"
  int32_t promptTokens = 0;
  double queueMillis = 0;   // waiting for a free sequence slot
  double promptMillis = 0;  // from the first prompt chunk decoded to the last
  double decodeMillis = 0;  // from the first sampled token to the last
  uint64_t maskApplyCount = 0;
  uint64_t maskApplyNanos = 0;
  uint64_t maskBackendSteps = 0;  // steps whose mask ran inside the graph
  std::vector<int32_t> forcedAt;  // indices in tokens of those appended by fast-forward (not sampled)
  int32_t decodeSteps = 0;  // forward passes behind the output: one per sampled token (the prompt's last included),
                            // plus any without an output row
  std::vector<float>
      stepHostMicros;             // per sampled token, when recordStepTimes: from the decode's end to the next batch
  bool grammarComplete = false;   // masked only: the output is a complete sentence of the grammar
  int32_t tokensAfterAbort = -1;  // tokens sampled after the job was aborted (-1: it was not)
};

}  // namespace toolmask::llama
