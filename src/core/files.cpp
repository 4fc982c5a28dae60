// files.cpp: reading and writing whole files (see files.h).
#include "arcscope/core/files.h"

#include <sys/stat.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "arcscope/core/error.h"
#include "arcscope/core/sizes.h"

namespace arcscope {

namespace {
constexpr size_t kAlign = 64;
uint64_t align_up(uint64_t n, uint64_t a) {
    return (n + a - 1) / a * a;
}
}  // namespace

AlignedBytes::AlignedBytes(size_t n) : size(n) {
    const size_t padded = buffer_bytes("the file's buffer", align_up(n ? n : 1, kAlign));
    data = static_cast<uint8_t*>(std::aligned_alloc(kAlign, padded));
    if (!data) throw std::bad_alloc();  // as new would: callers say what they were doing when memory ran out
}
AlignedBytes::~AlignedBytes() {
    std::free(data);
}

std::unique_ptr<AlignedBytes> read_file_aligned(const std::string& path) {
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
    require(!S_ISDIR(info.st_mode), path + " is a directory, not a file");
    require(S_ISREG(info.st_mode), path + " is not a regular file");
    std::FILE* fp = std::fopen(path.c_str(), "rb");
    if (fp == nullptr) throw Error("cannot open " + path + ": " + std::strerror(errno));
    const uint64_t n = uint64_t(info.st_size);
    std::unique_ptr<AlignedBytes> buf;
    try {
        buf = std::make_unique<AlignedBytes>(buffer_bytes("reading the file", n));
    } catch (...) {
        std::fclose(fp);
        throw;
    }
    size_t got = n ? std::fread(buf->data, 1, size_t(n), fp) : 0;
    std::fclose(fp);
    require(got == size_t(n), "cannot read " + path + " (it changed size while being read)");
    return buf;
}

std::string read_file_text(const std::string& path) {
    std::unique_ptr<AlignedBytes> bytes = read_file_aligned(path);
    return std::string(reinterpret_cast<const char*>(bytes->data), bytes->size);
}

void write_file(const std::string& path, const std::vector<std::pair<const uint8_t*, size_t>>& parts) {
    std::FILE* fp = std::fopen(path.c_str(), "wb");
    if (fp == nullptr) throw Error("cannot write " + path + ": " + std::strerror(errno));
    bool ok = true;
    for (const auto& [data, n] : parts) ok = ok && std::fwrite(data, 1, n, fp) == n;
    ok = std::fclose(fp) == 0 && ok;
    require(ok, "cannot write " + path + " (disk full?)");
}

void write_file(const std::string& path, const void* data, size_t n) {
    write_file(path, {{static_cast<const uint8_t*>(data), n}});
}

}  // namespace arcscope
