/* Shared by the file-format harnesses: the readers take paths, so each input goes into a
 * memfd and the reader opens /proc/self/fd/N (no disk writes, nothing left behind). */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static int fuzz_memfd_path(const uint8_t *data, size_t size, char path[64])
{
    int fd = memfd_create("cuzk-fuzz", 0);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) { close(fd); return -1; }
        off += (size_t)w;
    }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}
