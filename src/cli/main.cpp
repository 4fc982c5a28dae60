// main.cpp: `arcscope <command> [options]`. Every failure prints "error: ..." on stderr and exits 1.
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>
#include <vector>

#include "command.h"
#include "error.h"

namespace arcscope::cli {

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        arcscope::require(a.rfind("--", 0) == 0 && a.size() > 2, "unexpected argument '" + a + "'");
        std::string key = a.substr(2);
        bool is_flag = false;
        for (const auto& f : flags) is_flag |= (f == key);
        if (is_flag) {
            values_[key] = "";
        } else {
            arcscope::require(i + 1 < argv.size(), "option --" + key + " needs a value");
            values_[key] = argv[++i];
        }
    }
}

std::optional<std::string> Args::get(const std::string& key) const {
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

long Args::get_int(const std::string& key, long fallback) const {
    auto v = get(key);
    if (!v) return fallback;
    size_t used = 0;
    long n = 0;
    try { n = std::stol(*v, &used); } catch (const std::exception&) { used = 0; }
    arcscope::require(used == v->size() && !v->empty(), "--" + key + " expects an integer, got '" + *v + "'");
    return n;
}

double Args::get_double(const std::string& key, double fallback) const {
    auto v = get(key);
    if (!v) return fallback;
    size_t used = 0;
    double x = 0;
    try { x = std::stod(*v, &used); } catch (const std::exception&) { used = 0; }
    arcscope::require(used == v->size() && !v->empty(), "--" + key + " expects a number, got '" + *v + "'");
    return x;
}

bool Args::has(const std::string& flag) const { return values_.count(flag) > 0; }

void Args::reject_unknown(const std::vector<std::string>& known) const {
    for (const auto& [key, value] : values_) {
        bool ok = false;
        for (const auto& k : known) ok |= (k == key);
        arcscope::require(ok, "unknown option --" + key);
    }
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
        Args args(std::vector<std::string>(argv + 2, argv + argc), it->second.flags);
        return it->second.run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
