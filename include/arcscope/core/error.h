// error.h: the one exception type the library throws. Bad input never calls abort() or exit();
// the CLI prints "error: <message>" and the JS bindings rethrow it as an Error with the same message.
#pragma once
#include <stdexcept>
#include <string>

namespace arcscope {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws Error(message) unless cond holds. For checking input, not for internal invariants.
inline void require(bool cond, const std::string& message) {
    if (!cond) throw Error(message);
}

}  // namespace arcscope
