// cmd_attention_cost.cpp: `arcscope attention-cost`, the article's experiment on the command line.
#include <cstdio>
#include <sstream>

#include "arcscope/article/attention_cost.h"
#include "arcscope/core/error.h"
#include "command.h"

namespace arcscope::cli {
namespace {

std::vector<int> parse_lengths(const std::string& text) {
    std::vector<int> lengths;
    std::stringstream s(text);
    std::string item;
    while (std::getline(s, item, ',')) lengths.push_back(int(parse_integer(item, 1, 1 << 16, "--lengths")));
    return lengths;
}

int run(const Args& args) {
    const auto lengths = parse_lengths(args.get_or("lengths", "128,256,512,1024"));
    const auto points =
        measure_attention_cost(lengths, int(args.get_int("d-model", 768, 1, 1 << 16)),
                               int(args.get_int("heads", 12, 1, 1 << 12)), int(args.get_int("repeats", 3, 1, 1000)));
    for (const auto& p : points) std::printf("seq_len=%4d: %8.2f ms\n", p.seq_len, p.ms);
    if (points.size() >= 3) {
        const auto fit = fit_quadratic(points);
        std::printf("fit: ms = %.3g n^2 + %.3g n + %.3g\n", fit.a, fit.b, fit.c);
    }
    return 0;
}

const bool registered = register_command(
    "attention-cost", {"attention-cost [--lengths 128,256,512,1024 --d-model 768 --heads 12 --repeats 3]", run});

}  // namespace
}  // namespace arcscope::cli
