// exception_memory.cpp: memory for C++ exceptions when wasm memory is exhausted. Bindings only (linked into the
// browser modules).
//
// Emscripten 3.1.6 runs C++ exceptions in JavaScript: each throw mallocs its exception object, and each catch and each
// destructor-running landing pad mallocs 8 bytes of bookkeeping (library_exceptions.js). When malloc returns 0 there,
// the glue writes the exception's fields at address 0 and throws the bare number 16; the bookkeeping overwrites those
// fields, no handler matches, and a number, not an Error, reaches JavaScript. Native libc++abi keeps an emergency heap
// for exceptions for this reason; this is that heap for wasm.
//
// malloc is replaced: it asks dlmalloc first and, only when that fails, hands out a slot of a small static reserve.
// operator new is replaced to ask dlmalloc only, so the engine's own allocations (vectors, strings, all through new)
// fail with std::bad_alloc as before and can never drain the reserve; what still calls malloc is the exception glue
// (and the C library), which holds a few slots at most for the moment an exception is in flight.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

extern "C" {
void* emscripten_builtin_malloc(size_t size);  // dlmalloc itself (system/lib/dlmalloc.c)
void emscripten_builtin_free(void* ptr);
}

namespace {

constexpr size_t kSlotBytes = 256;  // an exception object and its header need about 40, a catch's bookkeeping 8
constexpr size_t kSlots = 64;       // one in-flight exception holds a few; a bit per slot in one word
alignas(16) unsigned char reserve[kSlots][kSlotBytes];
std::atomic<uint64_t> taken{0};

bool in_reserve(const void* p) {
    const auto* c = static_cast<const unsigned char*>(p);
    return c >= &reserve[0][0] && c < &reserve[0][0] + sizeof reserve;
}

void* reserve_slot() {
    uint64_t now = taken.load(std::memory_order_relaxed);
    while (~now != 0) {
        const int slot = __builtin_ctzll(~now);
        if (taken.compare_exchange_weak(now, now | uint64_t(1) << slot, std::memory_order_acquire))
            return reserve[slot];
    }
    return nullptr;
}

void release_slot(const void* p) {
    const size_t slot = size_t(static_cast<const unsigned char*>(p) - &reserve[0][0]) / kSlotBytes;
    taken.fetch_and(~(uint64_t(1) << slot), std::memory_order_release);
}

}  // namespace

extern "C" void* malloc(size_t size) {
    if (void* p = emscripten_builtin_malloc(size)) return p;
    return size <= kSlotBytes ? reserve_slot() : nullptr;
}

extern "C" void free(void* ptr) {
    if (in_reserve(ptr)) release_slot(ptr);
    else emscripten_builtin_free(ptr);
}

// The engine's allocations: dlmalloc, the new-handler, then std::bad_alloc, as the library's operator new does, but
// never the reserve. (operator new[] and the nothrow forms call this one; operator delete calls free.)
void* operator new(size_t size) {
    if (size == 0) size = 1;
    for (;;) {
        if (void* p = emscripten_builtin_malloc(size)) return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}
