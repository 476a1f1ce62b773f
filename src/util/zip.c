/* SPDX-License-Identifier: Apache-2.0 */
#include "util/zip.h"

#include <stdlib.h>
#include <string.h>

#include "util/gzip.h"

static uint8_t *le16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *le32(uint8_t *p, uint32_t v)
{
    p = le16(p, v & 0xffff);
    return le16(p, v >> 16);
}

/* The fields the local header and the central directory share, from "version needed". */
static uint8_t *common(uint8_t *p, uint32_t crc, uint32_t size, uint32_t namelen)
{
    p = le16(p, 10);   /* version needed: 1.0, stored */
    p = le16(p, 0);    /* flags */
    p = le16(p, 0);    /* method: stored */
    p = le16(p, 0);    /* time 00:00 */
    p = le16(p, 0x21); /* date 1980-01-01 */
    p = le32(p, crc);
    p = le32(p, size); /* compressed */
    p = le32(p, size); /* uncompressed */
    p = le16(p, namelen);
    return le16(p, 0); /* extra field length */
}

int zip_stored(const char *name, const uint8_t *data, size_t len, uint8_t **out, size_t *outlen)
{
    size_t namelen = strlen(name);
    if (namelen > 0xffff || len > 0x7fffffffu) return -1;
    size_t local = 30 + namelen, central = 46 + namelen, end = 22;
    size_t total = local + len + central + end;
    uint8_t *buf = malloc(total), *p = buf;
    if (!buf) return -1;
    uint32_t crc = gzip_crc32(data, len); /* the same CRC-32 as gzip */
    p = le32(p, 0x04034b50);
    p = common(p, crc, (uint32_t)len, (uint32_t)namelen);
    memcpy(p, name, namelen);
    p += namelen;
    memcpy(p, data, len);
    p += len;
    p = le32(p, 0x02014b50);
    p = le16(p, 20); /* made by: 2.0 */
    p = common(p, crc, (uint32_t)len, (uint32_t)namelen);
    p = le16(p, 0); /* comment length */
    p = le16(p, 0); /* disk */
    p = le16(p, 0); /* internal attributes */
    p = le32(p, 0); /* external attributes */
    p = le32(p, 0); /* offset of the local header */
    memcpy(p, name, namelen);
    p += namelen;
    p = le32(p, 0x06054b50);
    p = le16(p, 0);
    p = le16(p, 0);
    p = le16(p, 1);
    p = le16(p, 1);
    p = le32(p, (uint32_t)central);
    p = le32(p, (uint32_t)(local + len));
    le16(p, 0); /* comment length */
    *out = buf;
    *outlen = total;
    return 0;
}
