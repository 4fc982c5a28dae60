// files.cpp: reading and writing whole files (see files.h).
#include "arcscope/core/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

namespace {

// Writes the parts to an open file and closes it; false if any write or the close failed.
bool write_parts(std::FILE* fp, const std::vector<std::pair<const uint8_t*, size_t>>& parts) {
    bool ok = true;
    for (const auto& [data, n] : parts) ok = ok && std::fwrite(data, 1, n, fp) == n;
    return std::fclose(fp) == 0 && ok;
}

// A new file beside `path` (its name with ".partial-<pid>-<n>" added), created with the permissions `path` has, or
// those a new file gets; its name in `temp`.
std::FILE* open_beside(const std::string& path, const struct stat* existing, std::string& temp) {
    for (int n = 0; n < 100; ++n) {
        temp = path + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(n);
        const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) throw Error("cannot write " + path + ": " + std::strerror(errno));
        if (existing) ::fchmod(fd, existing->st_mode & 07777);
        if (std::FILE* fp = ::fdopen(fd, "wb")) return fp;
        ::close(fd);
        ::unlink(temp.c_str());
        throw Error("cannot write " + path + ": " + std::strerror(errno));
    }
    throw Error("cannot write " + path + ": 100 files named " + path + ".partial-* are in the way");
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
    struct stat x, y;
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

void write_file(const std::string& path, const std::vector<std::pair<const uint8_t*, size_t>>& parts) {
    struct stat info;
    const bool exists = ::stat(path.c_str(), &info) == 0;
    require(!exists || !S_ISDIR(info.st_mode), "cannot write " + path + ": it is a directory");
    if (exists && !S_ISREG(info.st_mode)) {  // /dev/null, /dev/stdout, a pipe: written to as they are
        std::FILE* fp = std::fopen(path.c_str(), "wb");
        if (fp == nullptr) throw Error("cannot write " + path + ": " + std::strerror(errno));
        require(write_parts(fp, parts), "cannot write " + path + " (disk full?)");
        return;
    }
    // A file is written beside its place and renamed into it once whole: a write that fails (a full disk, a size
    // limit) leaves the file that was there as it was, never a truncated one.
    std::string temp;
    std::FILE* fp = open_beside(path, exists ? &info : nullptr, temp);
    const int failed = write_parts(fp, parts) ? 0 : errno ? errno : EIO;
    if (failed != 0 || ::rename(temp.c_str(), path.c_str()) != 0) {
        const int why = failed ? failed : errno;
        ::unlink(temp.c_str());
        throw Error("cannot write " + path + ": " + std::strerror(why) +
                    (exists ? " (the file there is unchanged)" : ""));
    }
}

void write_file(const std::string& path, const void* data, size_t n) {
    write_file(path, {{static_cast<const uint8_t*>(data), n}});
}

}  // namespace arcscope
