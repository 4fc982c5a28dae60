// cmd_heads.cpp: `arcscope heads`, what each head does on random tokens.
// Scores every head (previous-token, first-token, induction; see heads.h) and prints a JSON grid, one row per layer.
// By default the random tokens are drawn from the whole vocabulary except end-of-text; --draw-from restricts them to
// the distinct tokens that occur in the first --draw-share (default 1) of that text's tokens, e.g. a model's
// training text; --by-frequency draws them as often as they occur there (like picking random positions of the text).
#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "arcscope/analysis/heads.h"
#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

std::vector<int> tokens_of_file(const ModelTokenizer& tok, const std::string& path, double share, bool by_frequency) {
    std::vector<int> ids = tok.encode("--draw-from", read_file_text(path));
    ids.resize(size_t(double(ids.size()) * share));
    std::sort(ids.begin(), ids.end());
    if (!by_frequency) ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    require(!ids.empty(), path + " has no tokens to draw from");
    return ids;
}

// A score per head as a (layer, head) grid.
void grid(JsonWriter& w, const std::vector<float>& v, int n_layer, int n_head) {
    w.open_array();
    for (int l = 0; l < n_layer; ++l) {
        w.open_array();
        for (int h = 0; h < n_head; ++h) w.number(v[size_t(l) * n_head + h], 4);
        w.close_array();
    }
    w.close_array();
}

// The best-scoring head: {layer, head, score}.
void best(JsonWriter& w, const std::vector<float>& v, int n_head) {
    const size_t i = size_t(std::max_element(v.begin(), v.end()) - v.begin());
    w.open_object().field("layer", int(i) / n_head).field("head", int(i) % n_head).field("score", v[i], 4);
    w.close_object();
}

int run(const Args& args) {
    std::unique_ptr<Decoder> model = load_model(args);
    const ModelConfig& c = model->config();
    const long long seed = args.get_int("seed", 0, 0, INT64_MAX);
    const long long length = args.get_int("length", std::min(50, c.n_ctx / 2), 2, std::max(2, c.n_ctx / 2));
    const double share = args.get_double("draw-share", 1.0);
    require(share > 0 && share <= 1, "--draw-share must be in (0, 1]");

    std::vector<int> candidates;
    std::string drawn_from = "all token ids except end-of-text";
    if (auto path = args.get("draw-from")) {
        const bool by_frequency = args.has("by-frequency");
        candidates = tokens_of_file(ModelTokenizer(args, *model), *path, share, by_frequency);
        drawn_from = std::to_string(candidates.size()) +
                     (by_frequency ? " tokens of the text, by frequency" : " distinct tokens of the text");
    } else {
        candidates = default_candidates(c);
    }
    HeadScores s = analyze_heads(*model, candidates, int(length), uint64_t(seed));

    JsonWriter w;
    w.open_object().field("seed", seed).field("length", length).field("drawn_from", drawn_from);
    grid(w.key("previous_token"), s.previous_token, c.n_layer, c.n_head);
    grid(w.key("first_token"), s.first_token, c.n_layer, c.n_head);
    grid(w.key("induction"), s.induction, c.n_layer, c.n_head);
    w.key("best").open_object();
    best(w.key("previous_token"), s.previous_token, c.n_head);
    best(w.key("first_token"), s.first_token, c.n_head);
    best(w.key("induction"), s.induction, c.n_head);
    w.close_object().close_object().print();
    return 0;
}

const bool registered = register_command(
    "heads", {"heads --model FILE [--seed S] [--length N] [--draw-from TEXT_FILE [--draw-share F] [--by-frequency]]"
              " [--tokenizer PATH]",
              run});

}  // namespace
}  // namespace arcscope::cli
