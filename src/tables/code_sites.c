/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/code_sites.h"

#include <stdlib.h>
#include <string.h>

#include "util/cmap.h"

/* A cached trace: its pointer (below 2^48 on every 64-bit Linux) and the depth above. */
#define DEPTH_SHIFT 48
#define PTR_MASK    (((uintptr_t)1 << DEPTH_SHIFT) - 1)
#define MAX_PROBE   64
#define CHUNK_BYTES (256u << 10)
#define MAX_CHUNKS  256            /* 64 MiB of entries at most */
#define TOMBSTONE   ((uintptr_t)1) /* a method slot whose method was unloaded */

/* The polynomial hashes' bases (odd) and their powers. */
#define FOLD_P1 0x9E3779B97F4A7C15ULL
#define FOLD_P2 0xC2B2AE3D27D4EB4FULL

/* P1^n and P2^n for each count of frames a site holds (nframes, at most 255). */
static uint64_t fold_pow[2][256];
static pthread_once_t fold_pow_once = PTHREAD_ONCE_INIT;

static void fold_pow_make(void)
{
    fold_pow[0][0] = fold_pow[1][0] = 1;
    for (int n = 1; n < 256; n++) {
        fold_pow[0][n] = fold_pow[0][n - 1] * FOLD_P1;
        fold_pow[1][n] = fold_pow[1][n - 1] * FOLD_P2;
    }
}

void code_sites_fold_word(uint64_t *h1, uint64_t *h2, uint64_t word)
{
    *h1 = *h1 * FOLD_P1 + word;
    *h2 = *h2 * FOLD_P2 + (word ^ 0x5851F42D4C957F2DULL) * 0xD6E8FEB86659FD93ULL; /* another word */
}

void code_sites_fold_site(uint64_t *h1, uint64_t *h2, const struct code_site *s)
{
    *h1 = *h1 * fold_pow[0][s->nframes] + s->fh1;
    *h2 = *h2 * fold_pow[1][s->nframes] + s->fh2;
}

uint64_t code_sites_frame_word(jmethodID method, jint bci)
{
    return hash_mix64((uint64_t)(uintptr_t)method ^ (uint64_t)(uint32_t)bci << 48);
}

bool code_sites_init(struct code_sites *t, uint32_t slots)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_once(&fold_pow_once, fold_pow_make);
    if (sizeof(uintptr_t) < 8 || slots < 16 || (slots & (slots - 1))) return false;
    uint32_t methods = slots / 8;
    t->slots = calloc(slots, sizeof *t->slots);
    t->methods = calloc(methods, sizeof *t->methods);
    if (!t->slots || !t->methods) {
        code_sites_destroy(t);
        return false;
    }
    t->mask = slots - 1;
    t->methods_mask = methods - 1;
    return true;
}

void code_sites_destroy(struct code_sites *t)
{
    /* Each chunk starts with a pointer to the one made before it. */
    for (char *c = t->chunk; c;) {
        char *prev = *(char **)c;
        free(c);
        c = prev;
    }
    free(t->slots);
    free(t->methods);
    t->slots = NULL;
    t->methods = NULL;
    t->chunk = NULL;
    t->mask = t->methods_mask = 0;
    pthread_mutex_destroy(&t->lock);
}

static uint32_t home(uintptr_t key, uint32_t mask) { return (uint32_t)hash_mix64(key) & mask; }

/* A slot's value: the entry, tagged with the top 16 bits of its pc's hash (the home
 * index takes the low ones). */
static uintptr_t tag_of(uint64_t hash) { return (uintptr_t)hash & ~PTR_MASK; }
static struct code_site *entry_of(uintptr_t slot) { return (struct code_site *)(slot & PTR_MASK); }

/* Drops unloaded methods from the table of methods (lock held; only writers use it). */
static void compact_methods(struct code_sites *t)
{
    struct code_method *fresh = calloc(t->methods_mask + 1, sizeof *fresh);
    if (!fresh) return;
    uint32_t used = 0;
    for (uint32_t j = 0; j <= t->methods_mask; j++) {
        if (t->methods[j].code_addr <= TOMBSTONE) continue;
        uint32_t i = home(t->methods[j].code_addr, t->methods_mask);
        while (fresh[i].code_addr) i = (i + 1) & t->methods_mask;
        fresh[i] = t->methods[j];
        used++;
    }
    free(t->methods);
    t->methods = fresh;
    t->methods_used = used;
}

/*
 * A compiled method's entry in the table of methods (lock held), made if need be;
 * NULL when that table is full of methods still loaded.
 */
static struct code_method *method_of(struct code_sites *t, uintptr_t code_addr, bool make)
{
    for (int round = 0; round < 2; round++) {
        uint32_t i = home(code_addr, t->methods_mask);
        for (uint32_t k = 0; k <= t->methods_mask; k++, i = (i + 1) & t->methods_mask) {
            if (t->methods[i].code_addr == code_addr) return &t->methods[i];
            if (t->methods[i].code_addr == 0) break;
        }
        if (!make) return NULL;
        if (t->methods_used < t->methods_mask / 4 * 3) {
            i = home(code_addr, t->methods_mask);
            while (t->methods[i].code_addr) i = (i + 1) & t->methods_mask;
            t->methods[i] = (struct code_method){code_addr, NULL};
            t->methods_used++;
            return &t->methods[i];
        }
        compact_methods(t);
    }
    return NULL;
}

/* Room for one entry (lock held): entries never move, so they come from chunks. */
static void *carve(struct code_sites *t, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    if (t->chunk_left < size) {
        /* Entries are never freed, so code compiled again and again ends here. */
        if (t->chunks >= MAX_CHUNKS) return NULL;
        char *c = malloc(CHUNK_BYTES);
        if (!c) return NULL;
        *(char **)c = t->chunk; /* the list of chunks, for destroy */
        t->chunk = c;
        t->chunk_left = CHUNK_BYTES - 8;
        t->chunks++;
    }
    void *p = t->chunk + (CHUNK_BYTES - t->chunk_left);
    t->chunk_left -= size;
    return p;
}

/*
 * Which of the code bytes at a site must stay as compiled: not the target of a near call
 * (e8 rel32) nor the constant of a movabs (REX.W b8+r imm64, an inline cache's), which
 * the JVM patches when the call is resolved or its cache changes. The bytes are not
 * decoded instruction by instruction, so an e8 inside another instruction also spares
 * the next four: the check gets weaker, never wrong.
 */
static uint16_t stable_bytes(const uint8_t *code)
{
    uint16_t stable = 0xffff;
    for (int i = 0; i < CODE_SITE_CODE; i++) {
        int skip = code[i] == 0xe8                                                                           ? 4
            : (code[i] == 0x48 || code[i] == 0x49) && i + 1 < CODE_SITE_CODE && (code[i + 1] & 0xf8) == 0xb8 ? 9
                                                                                                             : 0;
        for (int k = i + 1 + (skip == 9); k <= i + skip && k < CODE_SITE_CODE; k++) stable &= (uint16_t) ~(1u << k);
        i += skip;
    }
    return stable;
}

_Static_assert(CODE_SITE_CODE == 16, "the stable bytes are two words and a 16-bit mask");

/* Eight bits as eight bytes, 0xff for each bit set (bit i: byte i). */
static uint64_t bytes_of_bits(uint8_t bits)
{
    uint64_t x = bits * 0x0101010101010101ULL & 0x8040201008040201ULL;        /* byte i: bit i alone */
    return ((x + 0x7f7f7f7f7f7f7f7fULL) >> 7 & 0x0101010101010101ULL) * 0xff; /* nonzero -> 0xff */
}

/* Whether the code at pc is still what was compiled there: its stable bytes, kept
 * masked in code. The same check for a site and for a reader's copy of it. */
static bool code_unchanged(const uint64_t code[CODE_SITE_CODE / 8], uint16_t stable, const uint8_t *pc)
{
    uint64_t now[CODE_SITE_CODE / 8];
    memcpy(now, pc, sizeof now);
    return !(((now[0] ^ code[0]) & bytes_of_bits((uint8_t)stable)) |
             ((now[1] ^ code[1]) & bytes_of_bits((uint8_t)(stable >> 8))));
}

void code_sites_add(struct code_sites *t, uintptr_t code_addr, uintptr_t pc, const uint8_t *code, uint32_t frame_size,
                    int nframes, int keep, const jmethodID *methods, const jint *bcis)
{
    if (!t->slots || !pc || nframes <= 0) return;
    if (keep > nframes) keep = nframes;
    if (keep > CODE_SITE_FRAMES) keep = CODE_SITE_FRAMES;
    if (keep < 0) keep = 0;
    pthread_mutex_lock(&t->lock);
    struct code_method *m = t->used < t->mask / 4 * 3 ? method_of(t, code_addr, true) : NULL;
    uint64_t hash = hash_mix64(pc);
    uint32_t i = (uint32_t)hash & t->mask;
    for (uint32_t k = 0; m && k < MAX_PROBE; k++, i = (i + 1) & t->mask) {
        /* A dead site's slot is taken over: a reader that still holds it sees it dead. */
        struct code_site *old = entry_of(atomic_load_explicit(&t->slots[i], memory_order_relaxed));
        if (old && !atomic_load_explicit(&old->dead, memory_order_relaxed)) continue;
        struct code_site *s = carve(t, sizeof *s + (size_t)keep * sizeof s->frames[0]);
        if (!s || ((uintptr_t)s & ~PTR_MASK)) break; /* no room for the tag: not kept */
        s->pc = pc;
        s->code_addr = code_addr;
        s->frame_size = frame_size;
        s->nframes = (uint8_t)(nframes > 255 ? 255 : nframes);
        s->kept = (uint8_t)keep;
        s->stable = stable_bytes(code);
        memcpy(s->code, code, CODE_SITE_CODE);
        s->code[0] &= bytes_of_bits((uint8_t)s->stable);
        s->code[1] &= bytes_of_bits((uint8_t)(s->stable >> 8));
        for (int f = 0; f < keep; f++) s->frames[f] = (struct code_frame){methods[f], bcis[f]};
        s->fh1 = s->fh2 = 0;
        for (int f = 0; f < s->nframes; f++)
            code_sites_fold_word(&s->fh1, &s->fh2, code_sites_frame_word(methods[f], bcis[f]));
        atomic_init(&s->cached, 0);
        atomic_init(&s->dead, false);
        s->next_same_code = m->first;
        m->first = s;
        t->used += !old;
        atomic_store_explicit(&t->slots[i], (uintptr_t)s | tag_of(hash),
                              memory_order_release); /* readers may look now */
        break;
    }
    pthread_mutex_unlock(&t->lock);
}

void code_sites_unload(struct code_sites *t, uintptr_t code_addr)
{
    if (!t->slots) return;
    pthread_mutex_lock(&t->lock);
    struct code_method *m = method_of(t, code_addr, false);
    for (struct code_site *s = m ? m->first : NULL; s; s = s->next_same_code)
        atomic_store_explicit(&s->dead, true, memory_order_release);
    if (m) *m = (struct code_method){TOMBSTONE, NULL}; /* the sites keep their slots */
    /* After the sites are dead: a reader that copied one before this sees the count move. */
    atomic_fetch_add_explicit(&t->unloads, 1, memory_order_release);
    pthread_mutex_unlock(&t->lock);
}

struct code_site *code_sites_find(struct code_sites *t, uintptr_t pc)
{
    if (!t->slots || !pc) return NULL;
    uint64_t hash = hash_mix64(pc);
    uint32_t i = (uint32_t)hash & t->mask;
    uintptr_t tag = tag_of(hash);
    for (uint32_t k = 0; k < MAX_PROBE; k++, i = (i + 1) & t->mask) {
        uintptr_t slot = atomic_load_explicit(&t->slots[i], memory_order_acquire);
        if (!slot) return NULL;
        if ((slot & ~PTR_MASK) != tag) continue;
        struct code_site *s = entry_of(slot);
        if (s->pc != pc || atomic_load_explicit(&s->dead, memory_order_acquire)) continue;
        /* Code unloaded and its memory reused before the JVM told us differs here: the
         * new method's own site, if any, is further on. */
        if (code_unchanged(s->code, s->stable, (const uint8_t *)pc)) return s;
    }
    return NULL;
}

_Static_assert(sizeof(struct code_site_ref) == 64, "a copy of a site takes one cache line");

static void ref_fill(struct code_site_ref *r, struct code_site *s, uint32_t unloads)
{
    *r = (struct code_site_ref){.pc = s->pc,
                                .site = s,
                                .first = s->kept ? s->frames[0].method : NULL,
                                .code = {s->code[0], s->code[1]},
                                .unloads = unloads,
                                .frame_size = s->frame_size,
                                .stable = s->stable,
                                .nframes = s->nframes,
                                .kept = s->kept};
}

struct code_site_ref *code_sites_find_cached(struct code_sites *t, struct code_site_ref *cache, uint32_t mask,
                                             uintptr_t pc)
{
    if (!t->slots || !pc) return NULL;
    struct code_site_ref *r = &cache[(uint32_t)(hash_mix64(pc) >> 32) & mask];
    /* The count before the table: a site found live below and unloaded after moves it. */
    uint32_t unloads = atomic_load_explicit(&t->unloads, memory_order_acquire);
    if (r->pc == pc && r->unloads == unloads && code_unchanged(r->code, r->stable, (const uint8_t *)pc)) return r;
    struct code_site *s = code_sites_find(t, pc);
    if (!s) return NULL;
    ref_fill(r, s, unloads);
    return r;
}

struct trace *code_site_trace(struct code_site *s, int depth)
{
    uintptr_t c = atomic_load_explicit(&s->cached, memory_order_acquire);
    return c && (int)(c >> DEPTH_SHIFT) == depth ? (struct trace *)(c & PTR_MASK) : NULL;
}

void code_site_set_trace(struct code_site *s, struct trace *tr, int depth)
{
    uintptr_t p = (uintptr_t)tr;
    if (!tr || (p & ~PTR_MASK) || depth < 0 || depth >= (1 << 15)) return;
    atomic_store_explicit(&s->cached, p | (uintptr_t)depth << DEPTH_SHIFT, memory_order_release);
}

/*
 * C1 and C2 both start a method's frame, after the inline-cache check of a virtual
 * method, with a stack bang (mov [rsp-N], eax: 89 84 24 and a negative disp32; later
 * made a 5-byte jmp when the method is made not entrant), then push rbp (55) and sub rsp
 * (48 83 ec imm8 or 48 81 ec imm32; with -XX:+PreserveFramePointer, mov rbp, rsp between
 * them). The frame is that much, the saved rbp and the
 * return address. The bang before it keeps a stray 55 48 83 ec in the cache check's
 * constants from counting.
 */
uint32_t code_sites_frame_size(const uint8_t *code, size_t n)
{
    size_t end = n < 96 ? n : 96;
    for (size_t i = 7; i + 5 <= end; i++) {
        if (code[i] != 0x55) continue;
        bool bang = code[i - 7] == 0x89 && code[i - 6] == 0x84 && code[i - 5] == 0x24;
        bool patched = code[i - 7] == 0xe9;
        if (!(bang || patched) || code[i - 1] != 0xff) continue;
        size_t j = i + 1; /* -XX:+PreserveFramePointer: mov rbp, rsp first */
        if (j + 3 <= end && code[j] == 0x48 &&
            ((code[j + 1] == 0x8b && code[j + 2] == 0xec) || (code[j + 1] == 0x89 && code[j + 2] == 0xe5)))
            j += 3;
        if (j + 4 > end || code[j] != 0x48 || code[j + 2] != 0xec) continue;
        uint32_t sub;
        if (code[j + 1] == 0x83 && code[j + 3] < 0x80)
            sub = code[j + 3]; /* imm8, sign-extended */
        else if (code[j + 1] == 0x81 && j + 7 <= end)
            sub = (uint32_t)code[j + 3] | (uint32_t)code[j + 4] << 8 | (uint32_t)code[j + 5] << 16 |
                (uint32_t)code[j + 6] << 24;
        else
            continue;
        if (sub % 8 || sub > 65536) return 0;
        return sub + 16;
    }
    return 0;
}

bool code_sites_is_call(const uint8_t *pc, const uint8_t *code_start) { return pc - 5 >= code_start && pc[-5] == 0xe8; }
