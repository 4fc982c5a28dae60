// command.h: the CLI's subcommands register themselves here, one file each (cmd_*.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace arcscope::cli {

// The options a usage line declares: each --name, and whether a value follows it ("--out FILE") or not ("--json").
// The usage is the one declaration of a command's options: what it accepts, and what --help prints.
std::map<std::string, bool> declared_options(const std::string& usage);

// Parsed "--key value" options and bare "--flag"s of one subcommand, checked against its declared options.
class Args {
public:
    // Throws Error for an option the usage does not declare, one given twice, or a value missing after one that
    // takes it.
    Args(const std::vector<std::string>& argv, const std::map<std::string, bool>& declared);
    // Whether the command declares --key (shared helpers read some options only where a command takes them).
    bool declares(const std::string& key) const { return declared_.count(key) > 0; }
    // Reading an option the usage does not declare is a programming error, reported as one: the usage and the
    // code cannot drift apart unnoticed.
    std::optional<std::string> get(const std::string& key) const;
    // --key where the command declares it; nothing where it does not (for the helpers several commands share).
    std::optional<std::string> get_if_declared(const std::string& key) const {
        return declares(key) ? get(key) : std::nullopt;
    }
    std::string require(const std::string& key) const;  // throws Error("missing --key")
    std::string get_or(const std::string& key, const std::string& fallback) const;
    // --key as a decimal integer in [lo, hi] (no sign but '-', no spaces, no wrapping), else Error naming the range.
    long long get_int(const std::string& key, long long fallback, long long lo, long long hi) const;
    double get_double(const std::string& key, double fallback) const;  // a finite decimal number
    bool has(const std::string& flag) const;
    // Throws Error if an output (--out, --logits-bin) is the file an input (--model, --tokenizer, --text-file, --file)
    // names, e.g. `run --model m.arcs --out m.arcs` (compared as files, not strings: a link or "./m.arcs" is the same).
    void refuse_outputs_over_inputs() const;

private:
    std::map<std::string, bool> declared_;
    std::map<std::string, std::string> values_;
    void check_declared(const std::string& key) const;
};

struct Command {
    std::string usage;  // e.g. "tokenize (--text TEXT | --jsonl)": its options are declared_options(usage)
    std::function<int(const Args&)> run;
};

std::map<std::string, Command>& registry();

// In a cmd_*.cpp: static const bool registered = register_command("name", {...});
bool register_command(const std::string& name, Command command);

// text as a decimal integer in [lo, hi]: digits with an optional leading '-', nothing else. Throws Error
// "<what> expects an integer in [lo, hi], got 'text'".
long long parse_integer(const std::string& text, long long lo, long long hi, const std::string& what);

}  // namespace arcscope::cli
