// files.h: the one place files are read and written whole. Every failure is an Error naming the path and why
// ("is a directory, not a model file", "No such file or directory"); sizes are checked before allocating.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace arcscope {

// A 64-byte-aligned buffer of `size` bytes (what model files are loaded into: the engine reads weights in place).
struct AlignedBytes {
    uint8_t* data = nullptr;
    size_t size = 0;
    explicit AlignedBytes(size_t n);
    ~AlignedBytes();
    AlignedBytes(const AlignedBytes&) = delete;
    AlignedBytes& operator=(const AlignedBytes&) = delete;
};

// The whole file at path, in an aligned buffer.
std::unique_ptr<AlignedBytes> read_file_aligned(const std::string& path);
// The whole file at path as a string (config.json, a text to tokenize).
std::string read_file_text(const std::string& path);
// Writes n bytes to path, replacing it. A regular file is written beside its place and renamed into it when whole,
// so a failed write leaves what was there; a device or pipe (/dev/stdout) is written to directly.
void write_file(const std::string& path, const void* data, size_t n);
// Writes the parts one after another to path, replacing it as above (a file held in pages).
void write_file(const std::string& path, const std::vector<std::pair<const uint8_t*, size_t>>& parts);
// Whether two paths name one existing file (the same device and inode: "x" and "./x", a symbolic or hard link).
bool same_file(const std::string& a, const std::string& b);

}  // namespace arcscope
