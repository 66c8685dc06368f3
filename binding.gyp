{
  "targets": [
    {
      "target_name": "toolmask",
      "sources": [
        "native/core/json.cpp", "native/core/utf8.cpp", "native/core/ir_inline.cpp", "native/core/nfa.cpp", "native/core/nfa_perm.cpp", "native/core/nfa_text.cpp", "native/core/until_table.cpp", "native/core/nfa_count.cpp",
        "native/core/vocab.cpp", "native/core/dfa.cpp", "native/core/mask.cpp", "native/core/grammar.cpp", "native/core/grammar_budget.cpp", "native/core/matcher.cpp", "native/core/walk.cpp", "native/core/mask_prefetch.cpp", "native/core/fast_forward.cpp", "native/core/shape_cache.cpp", "native/core/rule_library.cpp", "native/core/nfa_until_body.cpp", "native/core/nfa_intersect.cpp", "native/core/nfa_counter_checks.cpp", "native/core/nfa_check.cpp", "native/core/nfa_departure.cpp",
        "native/core/public_api.cpp",
        "native/llama/shared_library.cpp", "native/llama/llama_api.cpp", "native/llama/model.cpp", "native/llama/mask_sampler.cpp", "native/llama/mask_backend.cpp", "native/llama/mask_unpack.cpp", "native/llama/mask_resident.cpp",
        "native/llama/sampler_chain.cpp", "native/llama/special_tokens.cpp", "native/llama/prompt_tokenizer.cpp", "native/llama/sequence.cpp", "native/llama/prompt_cache.cpp", "native/llama/batch_engine.cpp",
        "native/addon/addon.cpp", "native/addon/llama_addon.cpp", "native/addon/js_job.cpp", "native/addon/memory.cpp"
      ],
      "include_dirs": [
        "native/core/include",
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!(node scripts/build/llama-source.mjs)/include",
        "<!(node scripts/build/llama-source.mjs)/ggml/include"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc": ["-std=c++17", "-O2"],
      "conditions": [
        ["OS=='linux'", { "libraries": ["-ldl"] }],
        ["OS=='win'", { "defines": ["NOMINMAX", "WIN32_LEAN_AND_MEAN", "_CRT_SECURE_NO_WARNINGS"] }]
      ],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "GCC_ENABLE_CPP_RTTI": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "CLANG_CXX_LIBRARY": "libc++",
        "MACOSX_DEPLOYMENT_TARGET": "11.0"
      },
      "msvs_settings": {
        "VCCLCompilerTool": { "ExceptionHandling": 1, "RuntimeTypeInfo": "true", "AdditionalOptions": ["/std:c++17", "/utf-8"] }
      }
    }
  ]
}
