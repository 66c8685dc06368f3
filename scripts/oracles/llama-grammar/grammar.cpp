// llama.cpp's GBNF sampler as a line-protocol program, for tests: which tokens of a real
// vocabulary does llama.cpp's own grammar engine allow, step by step? Public llama.h only.
//
//   grammar <llama-grammar> <vocab.gguf>   (vocab-only GGUF; no weights are loaded)
//
// Requests on stdin, one reply line each on stdout:
//   vocab <file>     write every token as [u8 is_eog][u32 length][piece bytes] → "ok"
//   grammar <file>   a new grammar sampler from a GBNF file (root rule "root") → "ok" | "error"
//   mask             apply the sampler to every token → "mask " + ⌈V/32⌉ words, 8 hex digits
//                    each, bit (id % 32) of word (id / 32) set = allowed
//   check <id>...    apply the sampler to just these tokens (cheap) → "check" + the allowed ones
//   accept <id>      "1" and the sampler advances if the token is allowed, else "0" and nothing
//                    changes (llama.cpp aborts on accepting a disallowed end of generation)
//   reset            back to the grammar's start → "ok"
#include "llama.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static void log_cb(enum ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN) fputs(text, stderr);
}

static std::string piece_of(const llama_vocab * vocab, llama_token id) {
    std::vector<char> buf(64);
    int32_t n = llama_token_to_piece(vocab, id, buf.data(), (int32_t) buf.size(), 0, true);
    if (n < 0) {
        buf.resize(-n);
        n = llama_token_to_piece(vocab, id, buf.data(), (int32_t) buf.size(), 0, true);
    }
    return std::string(buf.data(), n < 0 ? 0 : n);
}

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <vocab.gguf>\n", argv[0]);
        return 2;
    }
    llama_log_set(log_cb, nullptr);
    llama_model_params mp = llama_model_default_params();
    mp.vocab_only = true;
    llama_model * model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        return 1;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    const int32_t n_vocab = llama_vocab_n_tokens(vocab);
    std::vector<llama_token_data> cand(n_vocab);
    llama_sampler * smpl = nullptr;

    // Is `id` allowed now? The sampler sets a rejected candidate's logit to -inf.
    auto allows = [&](llama_token id) {
        llama_token_data one = { id, 0.0f, 0.0f };
        llama_token_data_array arr = { &one, 1, -1, false };
        llama_sampler_apply(smpl, &arr);
        return std::isfinite(one.logit);
    };

    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd, arg;
        in >> cmd;
        std::getline(in >> std::ws, arg);
        if (cmd == "vocab") {
            std::ofstream out(arg, std::ios::binary);
            for (llama_token id = 0; id < n_vocab; id++) {
                const std::string p = piece_of(vocab, id);
                const uint8_t eog = llama_vocab_is_eog(vocab, id) ? 1 : 0;
                const uint32_t len = (uint32_t) p.size();
                out.write((const char *) &eog, 1);
                out.write((const char *) &len, 4);
                out.write(p.data(), len);
            }
            out.close();  // the reader opens the file as soon as it sees the reply
            std::cout << (out ? "ok" : "error") << std::endl;
        } else if (cmd == "grammar") {
            std::ifstream f(arg, std::ios::binary);
            std::stringstream text;
            text << f.rdbuf();
            if (smpl) llama_sampler_free(smpl);
            smpl = nullptr;
            try {
                smpl = llama_sampler_init_grammar(vocab, text.str().c_str(), "root");
            } catch (const std::exception & e) {
                fprintf(stderr, "%s\n", e.what());
            }
            std::cout << (f && smpl ? "ok" : "error") << std::endl;
        } else if (!smpl) {
            std::cout << "error" << std::endl;
        } else if (cmd == "mask") {
            for (llama_token id = 0; id < n_vocab; id++) cand[id] = { id, 0.0f, 0.0f };
            llama_token_data_array arr = { cand.data(), cand.size(), -1, false };
            llama_sampler_apply(smpl, &arr);
            std::vector<uint32_t> words((n_vocab + 31) / 32, 0);
            // The sampler may reorder or shrink the array (it does not today): read ids from it.
            for (size_t i = 0; i < arr.size; i++)
                if (std::isfinite(arr.data[i].logit)) words[arr.data[i].id / 32] |= 1u << (arr.data[i].id % 32);
            std::string out = "mask ";
            char hex[9];
            for (uint32_t w : words) {
                snprintf(hex, sizeof hex, "%08x", w);
                out += hex;
            }
            std::cout << out << std::endl;
        } else if (cmd == "check") {
            std::vector<llama_token_data> some;
            std::istringstream ids(arg);
            for (long id; ids >> id;)
                if (id >= 0 && id < n_vocab) some.push_back({ (llama_token) id, 0.0f, 0.0f });
            llama_token_data_array arr = { some.data(), some.size(), -1, false };
            llama_sampler_apply(smpl, &arr);
            std::string out = "check";
            for (size_t i = 0; i < arr.size; i++)
                if (std::isfinite(arr.data[i].logit)) out += " " + std::to_string(arr.data[i].id);
            std::cout << out << std::endl;
        } else if (cmd == "accept") {
            const llama_token id = (llama_token) std::stol(arg);
            const bool ok = id >= 0 && id < n_vocab && allows(id);
            if (ok) llama_sampler_accept(smpl, id);
            std::cout << (ok ? "1" : "0") << std::endl;
        } else if (cmd == "reset") {
            llama_sampler_reset(smpl);
            std::cout << "ok" << std::endl;
        } else {
            std::cout << "error" << std::endl;
        }
    }
    if (smpl) llama_sampler_free(smpl);
    llama_model_free(model);
    return 0;
}
