// main.cpp: `arcscope <command> [options]`. Every failure prints "error: ..." on stderr and exits 1.
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "command.h"

namespace arcscope::cli {

std::map<std::string, bool> declared_options(const std::string& usage) {
    // Words of the usage without their brackets; "--name" takes a value when the next word is not an option or "|".
    std::vector<std::string> words;
    std::istringstream in(usage);
    for (std::string w; in >> w;) {
        const size_t a = w.find_first_not_of("[("), b = w.find_last_not_of("])");
        words.push_back(a == std::string::npos ? "" : w.substr(a, b - a + 1));
    }
    std::map<std::string, bool> options;
    for (size_t i = 0; i < words.size(); ++i) {
        if (words[i].rfind("--", 0) != 0) continue;
        const bool value =
            i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0 && words[i + 1] != "|" && !words[i + 1].empty();
        options[words[i].substr(2)] = value;
    }
    return options;
}

Args::Args(const std::vector<std::string>& argv, const std::map<std::string, bool>& declared) : declared_(declared) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        arcscope::require(a.rfind("--", 0) == 0 && a.size() > 2, "unexpected argument '" + a + "'");
        std::string key = a.substr(2);
        auto it = declared_.find(key);
        arcscope::require(it != declared_.end(), "unknown option --" + key);
        // Which of two values a command would take is a guess: "--dtype q8 --dtype f32" is refused, not read as f32.
        arcscope::require(values_.count(key) == 0, "option --" + key + " is given twice: give it once");
        if (!it->second) {
            values_[key] = "";
        } else {
            arcscope::require(i + 1 < argv.size(), "option --" + key + " needs a value");
            values_[key] = argv[++i];
        }
    }
}

void Args::refuse_outputs_over_inputs() const {
    // The options commands write files to, and those whose files they read (--text is text, even if a file has its
    // name; convert's --in DIR is checked by the converter, which knows the files in it).
    for (const char* output : {"out", "logits-bin"}) {
        auto out = values_.find(output);
        if (out == values_.end()) continue;
        for (const char* input : {"model", "tokenizer", "text-file", "file"}) {
            auto in = values_.find(input);
            arcscope::require(in == values_.end() || !same_file(out->second, in->second),
                              "--" + std::string(output) + " " + out->second + " is the file --" + input +
                                  " reads: writing it would destroy the input (give another path)");
        }
    }
}

void Args::check_declared(const std::string& key) const {
    if (!declares(key))
        throw std::logic_error("internal error: the command reads --" + key + ", which its usage does not declare");
}

std::optional<std::string> Args::get(const std::string& key) const {
    check_declared(key);
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::require(const std::string& key) const {
    auto v = get(key);
    arcscope::require(v.has_value(), "missing --" + key);
    return *v;
}

std::string Args::get_or(const std::string& key, const std::string& fallback) const {
    return get(key).value_or(fallback);
}

long long parse_integer(const std::string& text, long long lo, long long hi, const std::string& what) {
    // std::stol would skip spaces, take '+' and read "4294967297" into a long that the caller then cuts to int.
    const size_t first = !text.empty() && text[0] == '-' ? 1 : 0;
    bool ok = text.size() > first && text.size() - first <= 18;
    for (size_t i = first; ok && i < text.size(); ++i) ok = text[i] >= '0' && text[i] <= '9';
    const long long n = ok ? std::stoll(text) : 0;
    arcscope::require(ok && n >= lo && n <= hi, what + " expects an integer in [" + std::to_string(lo) + ", " +
                                                    std::to_string(hi) + "], got '" + text + "'");
    return n;
}

long long Args::get_int(const std::string& key, long long fallback, long long lo, long long hi) const {
    auto v = get(key);
    return v ? parse_integer(*v, lo, hi, "--" + key) : fallback;
}

double Args::get_double(const std::string& key, double fallback) const {
    auto v = get(key);
    if (!v) return fallback;
    size_t used = 0;
    double x = 0;
    const bool plain = !v->empty() && v->find_first_not_of("0123456789.eE+-") == std::string::npos;
    try {
        x = plain ? std::stod(*v, &used) : 0;
    } catch (const std::exception&) {
        used = 0;
    }
    arcscope::require(plain && used == v->size() && std::isfinite(x),
                      "--" + key + " expects a finite number, got '" + *v + "'");
    return x;
}

bool Args::has(const std::string& flag) const {
    check_declared(flag);
    return values_.count(flag) > 0;
}

std::map<std::string, Command>& registry() {
    static std::map<std::string, Command> commands;
    return commands;
}

bool register_command(const std::string& name, Command command) {
    registry()[name] = std::move(command);
    return true;
}

static std::string usage() {
    std::ostringstream s;
    s << "usage: arcscope <command> [options]\ncommands:\n";
    for (const auto& [name, cmd] : registry()) s << "  arcscope " << cmd.usage << "\n";
    return s.str();
}

}  // namespace arcscope::cli

int main(int argc, char** argv) {
    using namespace arcscope::cli;
    std::vector<std::string> words(argv + 1, argv + argc);
    bool asks_help = false;
    if (!words.empty() && (words[0] == "help" || words[0] == "--help")) {
        asks_help = true;
        words.erase(words.begin());
    } else if (!words.empty() && words.back() == "--help") {
        asks_help = true;
    }
    if (words.empty()) {
        std::cout << usage();
        return asks_help ? 0 : 1;
    }
    std::string name = words[0];
    auto it = registry().find(name);
    if (it == registry().end()) {
        std::cerr << "error: unknown command '" << name << "'\n" << usage();
        return 1;
    }
    if (asks_help) {  // "arcscope help run", "arcscope run --help"
        std::cout << "usage: arcscope " << it->second.usage << "\n";
        return 0;
    }
    try {
        Args args(std::vector<std::string>(argv + 2, argv + argc), declared_options(it->second.usage));
        args.refuse_outputs_over_inputs();
        return it->second.run(args);
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of memory: `arcscope " << name
                  << "` needed more memory than the system gave it (fewer tokens, or a smaller model, need less)\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
