// One generation: a fresh llama_context (its own KV cache, one sequence), the prompt decoded,
// then token by token through the sampler chain until end-of-generation, maxTokens or the context
// is full. Runs on whatever thread calls it (the addon calls it from a worker thread).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../core/grammar.hpp"
#include "model.hpp"

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
  std::string prompt;  // rendered chat; special-token text in it is parsed as those tokens
  int32_t maxTokens = 256;
  uint32_t contextSize = 4096;
  int32_t threads = 1;
  SamplingParams sampling;
  std::shared_ptr<CompiledGrammar> grammar;  // null: unmasked
  // Attach the chain to the context: llama.cpp runs its samplers that have backend hooks (the mask,
  // top-k, top-p, min-p, temp, dist, greedy) as graph ops, on whatever backend holds the logits.
  bool backendSampling = false;
};

struct GenerationResult {
  std::vector<llama_token> tokens;  // generated, including a final end-of-generation token
  std::string finishReason;         // "stop" (end of generation), "length", "aborted"
  int32_t promptTokens = 0;
  double promptMillis = 0;
  double decodeMillis = 0;  // from the first sampled token to the last
  uint64_t maskApplyCount = 0;
  uint64_t maskApplyNanos = 0;
  uint64_t maskBackendSteps = 0;  // steps whose mask ran inside the graph
  bool grammarComplete = false;  // masked only: the output is a complete sentence of the grammar
};

// Called with each new token on the decoding thread.
using TokenSink = std::function<void(llama_token)>;

// Throws std::runtime_error with what to do on bad input (prompt too long for the context, ...).
GenerationResult generate(const Model& model, const GenerationRequest& req, const TokenSink& sink,
                          const std::atomic<bool>& abort);

}  // namespace toolmask::llama
