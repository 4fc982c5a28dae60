// command.h: the CLI's subcommands register themselves here, one file each (cmd_*.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace arcscope::cli {

// Parsed "--key value" options and bare "--flag"s of one subcommand.
class Args {
public:
    Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags);
    std::optional<std::string> get(const std::string& key) const;
    std::string require(const std::string& key) const;  // throws Error("missing --key")
    std::string get_or(const std::string& key, const std::string& fallback) const;
    // --key as a decimal integer in [lo, hi] (no sign but '-', no spaces, no wrapping), else Error naming the range.
    long long get_int(const std::string& key, long long fallback, long long lo, long long hi) const;
    double get_double(const std::string& key, double fallback) const;  // a finite decimal number
    bool has(const std::string& flag) const;
    void reject_unknown(const std::vector<std::string>& known) const;

private:
    std::map<std::string, std::string> values_;
};

struct Command {
    std::string usage;               // e.g. "tokenize (--text TEXT | --jsonl)"
    std::vector<std::string> flags;  // options that take no value
    std::function<int(const Args&)> run;
};

std::map<std::string, Command>& registry();

// In a cmd_*.cpp: static const bool registered = register_command("name", {...});
bool register_command(const std::string& name, Command command);

// text as a decimal integer in [lo, hi]: digits with an optional leading '-', nothing else. Throws Error
// "<what> expects an integer in [lo, hi], got 'text'".
long long parse_integer(const std::string& text, long long lo, long long hi, const std::string& what);

}  // namespace arcscope::cli
