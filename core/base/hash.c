/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/base/i18n.h"

enum cu_status
cu_sha256_init(struct cu_sha256 *h, struct cu_error *err)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(c);
        h->ctx = NULL;
        return cu_error_set(err, CU_E_NOMEM, 0, _("Cannot start a SHA-256 hash"));
    }
    h->ctx = c;
    return CU_OK;
}

void
cu_sha256_update(struct cu_sha256 *h, const void *data, size_t len)
{
    if (h->ctx && len)
        EVP_DigestUpdate(h->ctx, data, len);
}

void
cu_sha256_final(struct cu_sha256 *h, char out[65])
{
    unsigned char md[32];
    unsigned int n = 0;
    static const char hex[] = "0123456789abcdef";
    out[0] = '\0';
    if (!h->ctx || EVP_DigestFinal_ex(h->ctx, md, &n) != 1 || n != 32)
        return;
    for (unsigned i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
    EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL);
}

void
cu_sha256_fini(struct cu_sha256 *h)
{
    EVP_MD_CTX_free(h->ctx);
    h->ctx = NULL;
}

void
cu_sha256_hex(const void *data, size_t len, char out[65])
{
    struct cu_sha256 h;
    out[0] = '\0';
    if (cu_sha256_init(&h, NULL) != CU_OK)
        return;
    cu_sha256_update(&h, data, len);
    cu_sha256_final(&h, out);
    cu_sha256_fini(&h);
}

enum cu_status
cu_sha256_file(const char *path, char out[65], unsigned long long *size, struct cu_error *err)
{
    struct cu_sha256 h;
    unsigned long long total = 0;
    enum cu_status st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cu_error_set(err, errno == ENOENT ? CU_E_NOT_FOUND : CU_E_IO, errno,
                            _("Cannot read %s"), path);
    if ((st = cu_sha256_init(&h, err)) != CU_OK) {
        close(fd);
        return st;
    }
    static __thread unsigned char buf[1 << 17];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            cu_sha256_fini(&h);
            close(fd);
            return cu_error_set(err, CU_E_IO, e, _("Cannot read %s"), path);
        }
        if (n == 0)
            break;
        cu_sha256_update(&h, buf, (size_t)n);
        total += (unsigned long long)n;
    }
    close(fd);
    cu_sha256_final(&h, out);
    cu_sha256_fini(&h);
    if (size)
        *size = total;
    return CU_OK;
}
