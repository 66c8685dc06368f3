// llama.cpp's own chat parser as a JSON-lines service, so tests can compare our tool-call parser
// with the one llama-server uses on the same model output.
//
// One request per stdin line, one response per stdout line, in order:
//   {"id"?, "template": "<path.jinja>" | "template_text": "...", "tools": [OpenAI tools],
//    "text": "<model output>", "is_partial": false, "reasoning_format": "auto"|"none"|"deepseek"|...,
//    "parallel_tool_calls": true, "messages"?: [OpenAI messages], "tool_choice"?: "auto"|"required"|"none",
//    "enable_thinking"?: true, "bos_token"?: "", "eos_token"?: ""}
//   -> {"id"?, "ok": true, "format", "generation_prompt", "content", "reasoning_content",
//       "tool_calls": [{"name","arguments","id"}]}
//   -> {"id"?, "ok": false, "stage": "request"|"template"|"apply"|"parse", "error": "<what()>"}
//
// The steps mirror llama-server (tools/server/server-common.cpp + server-schema.cpp):
// common_chat_templates_init -> common_chat_templates_apply (tools, one user message,
// add_generation_prompt) -> common_chat_parser_params{format, generation_prompt, parser.load(params.parser),
// reasoning_format} -> common_chat_parse(text, is_partial, ...).

#include "chat.h"
#include "json.h"
#include "log.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

using ojson = nlohmann::ordered_json;

namespace {

// Everything llama.cpp logs at INFO level goes to stdout; the protocol owns the real stdout,
// so it is moved to a private fd and fd 1 is pointed at stderr.
FILE * g_out = nullptr;

void claim_stdout() {
    int fd = dup(STDOUT_FILENO);
    if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::perror("oracle: dup");
        std::exit(2);
    }
    g_out = fdopen(fd, "w");
    if (!g_out) {
        std::perror("oracle: fdopen");
        std::exit(2);
    }
}

void reply(const ojson & j) {
    // Model output can be cut inside a UTF-8 sequence: replace bad bytes instead of throwing.
    std::string s = j.dump(-1, ' ', false, ojson::error_handler_t::replace);
    std::fputs(s.c_str(), g_out);
    std::fputc('\n', g_out);
    std::fflush(g_out);
}

struct stage_error : std::runtime_error {
    std::string stage;
    stage_error(std::string stage, const std::string & what) : std::runtime_error(what), stage(std::move(stage)) {}
};

std::string read_file(const std::string & path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        throw std::runtime_error("cannot read template file: " + path);
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Parsing a template and running the auto-parser analysis are the slow steps (many renders);
// tests send many texts against few (template, tools, options) combinations.
std::map<std::string, common_chat_templates_ptr> g_templates;
struct prepared {
    common_chat_params params;
    common_peg_arena   arena;
};
std::map<std::string, std::shared_ptr<prepared>> g_prepared;

common_chat_templates * get_templates(const std::string & src, const std::string & bos, const std::string & eos) {
    std::string key = bos + '\x01' + eos + '\x01' + src;
    auto it = g_templates.find(key);
    if (it != g_templates.end()) {
        return it->second.get();
    }
    auto tmpls = common_chat_templates_init(nullptr, src, bos, eos);
    auto * ptr = tmpls.get();
    g_templates.emplace(key, std::move(tmpls));
    return ptr;
}

template <typename T> T opt(const ojson & req, const char * key, T dflt) {
    auto it = req.find(key);
    if (it == req.end() || it->is_null()) {
        return dflt;
    }
    return it->get<T>();
}

ojson handle(const ojson & req) {
    std::string src, bos, eos, text, reasoning_name;
    bool is_partial, parallel, enable_thinking;
    ojson tools, messages;
    std::string tool_choice;
    try {
        if (!req.is_object()) {
            throw std::runtime_error("request must be a JSON object");
        }
        if (req.contains("template_text")) {
            src = req.at("template_text").get<std::string>();
        } else {
            src = read_file(req.at("template").get<std::string>());
        }
        bos             = opt<std::string>(req, "bos_token", "");
        eos             = opt<std::string>(req, "eos_token", "");
        text            = req.at("text").get<std::string>();
        is_partial      = opt<bool>(req, "is_partial", false);
        // llama-server's default (common_params::reasoning_format) is deepseek.
        reasoning_name  = opt<std::string>(req, "reasoning_format", "deepseek");
        parallel        = opt<bool>(req, "parallel_tool_calls", true);
        enable_thinking = opt<bool>(req, "enable_thinking", true);
        tool_choice     = opt<std::string>(req, "tool_choice", "auto");
        tools           = req.contains("tools") && !req.at("tools").is_null() ? req.at("tools") : ojson::array();
        messages        = req.contains("messages") && !req.at("messages").is_null()
                              ? req.at("messages")
                              : ojson::array({ ojson{ { "role", "user" }, { "content", "Hello" } } });
    } catch (const std::exception & e) {
        throw stage_error("request", e.what());
    }

    common_reasoning_format reasoning_format;
    try {
        reasoning_format = common_reasoning_format_from_name(reasoning_name);
    } catch (const std::exception & e) {
        throw stage_error("request", e.what());
    }

    common_chat_templates * tmpls;
    try {
        tmpls = get_templates(src, bos, eos);
    } catch (const std::exception & e) {
        throw stage_error("template", e.what());
    }

    std::string key = src + '\x01' + bos + '\x01' + eos + '\x01' + reasoning_name + '\x01' +
                      (parallel ? "p" : "s") + (enable_thinking ? "t" : "n") + tool_choice + '\x01' +
                      tools.dump() + '\x01' + messages.dump();
    std::shared_ptr<prepared> prep;
    auto it = g_prepared.find(key);
    if (it != g_prepared.end()) {
        prep = it->second;
    } else {
        try {
            // Same conversions as llama-server: OpenAI JSON -> common_json -> common_chat_* structs.
            common_chat_templates_inputs inputs;
            inputs.messages              = common_chat_msgs_parse_oaicompat(common_json::parse(messages.dump()));
            inputs.tools                 = common_chat_tools_parse_oaicompat(common_json::parse(tools.dump()));
            inputs.tool_choice           = common_chat_tool_choice_parse_oaicompat(tool_choice);
            inputs.use_jinja             = true;
            inputs.parallel_tool_calls   = parallel;
            inputs.add_generation_prompt = true;
            inputs.reasoning_format      = reasoning_format;
            inputs.enable_thinking       = enable_thinking;
            prep                         = std::make_shared<prepared>();
            prep->params                 = common_chat_templates_apply(tmpls, inputs);
            if (!prep->params.parser.empty()) {
                prep->arena.load(prep->params.parser);
            }
        } catch (const std::exception & e) {
            throw stage_error("apply", e.what());
        }
        g_prepared.emplace(key, prep);
    }

    common_chat_msg msg;
    try {
        common_chat_parser_params pp(prep->params);
        pp.reasoning_format = reasoning_format;
        pp.parse_tool_calls = true;  // the server sets this whenever tools are given
        pp.parser           = prep->arena;
        msg                 = common_chat_parse(text, is_partial, pp);
    } catch (const std::exception & e) {
        throw stage_error("parse", e.what());
    }

    ojson calls = ojson::array();
    for (const auto & tc : msg.tool_calls) {
        calls.push_back(ojson{ { "name", tc.name }, { "arguments", tc.arguments }, { "id", tc.id } });
    }
    return ojson{
        { "ok", true },
        { "format", common_chat_format_name(prep->params.format) },
        { "generation_prompt", prep->params.generation_prompt },
        { "content", msg.content },
        { "reasoning_content", msg.reasoning_content },
        { "tool_calls", calls },
    };
}

}  // namespace

int main() {
    claim_stdout();
    // Warnings such as "unparsed ... output" are useful on stderr; debug chatter is not.
    common_log_set_verbosity_thold(LOG_DEFAULT_LLAMA);

    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) {
            continue;
        }
        ojson req;
        ojson res;
        try {
            req = ojson::parse(line);
            res = handle(req);
        } catch (const stage_error & e) {
            res = ojson{ { "ok", false }, { "stage", e.stage }, { "error", e.what() } };
        } catch (const std::exception & e) {
            res = ojson{ { "ok", false }, { "stage", "request" }, { "error", e.what() } };
        } catch (...) {
            res = ojson{ { "ok", false }, { "stage", "unknown" }, { "error", "non-standard exception" } };
        }
        if (req.is_object() && req.contains("id")) {
            res["id"] = req["id"];
        }
        try {
            reply(res);
        } catch (...) {
            reply(ojson{ { "ok", false }, { "stage", "reply" }, { "error", "could not serialise the result" } });
        }
    }
    return 0;
}
