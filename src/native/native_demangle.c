/* SPDX-License-Identifier: Apache-2.0 */
/* An Itanium C++ ABI demangler, bounded (native_demangle.h). Each parse function reads
 * from d->p and returns pieces of text in the arena; a failure sets d->fail and every
 * caller unwinds. Substitution candidates are recorded in the order the ABI gives. */
#include "native/native_demangle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DM_ARENA     (64 * 1024)
#define DM_MAX_DEPTH 64
#define DM_MAX_SUBS  256
#define DM_MAX_TARGS 64
#define DM_NO_RETURN 0x100u /* a local name's function: shown without its return type */

/* A piece of the arena. */
struct str {
    uint32_t off, len;
};

enum { T_PLAIN, T_FUNC, T_ARRAY, T_GROUPED }; /* how a type takes a pointer to it */

/* A type printed as left + right: "void (*" + ")(int)". A bare function's is
 * left + " " + right. */
struct type {
    struct str left, right;
    struct str simple; /* a class's last source name, for its constructors */
    uint8_t kind;
};

struct dm {
    const char *p, *end;
    int depth;
    bool fail;
    char *arena;
    uint32_t used;
    struct type subs[DM_MAX_SUBS];
    int nsubs;
    struct type targs[DM_MAX_TARGS];
    int ntargs;
    int type_nest;  /* >0 inside a type: template arguments there are not the function's */
    unsigned flags; /* NDM_*: how local names show their function */
};

/* What a name parse found out. */
struct name {
    struct str s, simple;        /* the whole, and its last source name */
    struct str quals;            /* a member function's " const", " &", ... */
    bool is_template, no_return; /* no return type encoded: a constructor, ... */
};

static const struct str EMPTY = {0, 0};

/* ---- text in the arena ---- */

static uint32_t mark(struct dm *d) { return d->used; }

static void add_bytes(struct dm *d, const char *s, size_t n)
{
    if (d->fail || n > DM_ARENA - d->used) {
        d->fail = true;
        return;
    }
    memmove(d->arena + d->used, s, n);
    d->used += (uint32_t)n;
}

static void add(struct dm *d, struct str s) { add_bytes(d, d->arena + s.off, s.len); }
static void lit(struct dm *d, const char *s) { add_bytes(d, s, strlen(s)); }
static struct str done(struct dm *d, uint32_t from) { return (struct str){from, d->used - from}; }

static struct str make(struct dm *d, const char *s)
{
    uint32_t m = mark(d);
    lit(d, s);
    return done(d, m);
}

static void add_number(struct dm *d, size_t n)
{
    char num[24];
    size_t k = sizeof num;
    do num[--k] = (char)('0' + n % 10);
    while ((n /= 10) > 0 && k > 0);
    add_bytes(d, num + k, sizeof num - k);
}

static char last_char(struct dm *d, struct str s) { return s.len ? d->arena[s.off + s.len - 1] : 0; }

static struct type plain(struct str s) { return (struct type){s, EMPTY, EMPTY, T_PLAIN}; }

/* s + t, or s::t (sep "::"). */
static struct str join(struct dm *d, struct str s, const char *sep, struct str t)
{
    if (!s.len) return t;
    uint32_t m = mark(d);
    add(d, s);
    lit(d, sep);
    add(d, t);
    return done(d, m);
}

/* A type as one piece of text. */
static struct str type_text(struct dm *d, const struct type *t)
{
    if (!t->right.len) return t->left;
    uint32_t m = mark(d);
    add(d, t->left);
    if (t->kind == T_FUNC) lit(d, " ");
    add(d, t->right);
    return done(d, m);
}

/* ---- input ---- */

static char peek(struct dm *d, size_t i) { return (size_t)(d->end - d->p) > i ? d->p[i] : 0; }
static bool eat(struct dm *d, char c)
{
    if (peek(d, 0) != c) return false;
    d->p++;
    return true;
}

static bool fail(struct dm *d)
{
    d->fail = true;
    return false;
}

/* A decimal number; false when there is none or it is too big. */
static bool number(struct dm *d, size_t *n)
{
    *n = 0;
    if (!(peek(d, 0) >= '0' && peek(d, 0) <= '9')) return fail(d);
    while (peek(d, 0) >= '0' && peek(d, 0) <= '9') {
        *n = *n * 10 + (size_t)(*d->p++ - '0');
        if (*n > NDM_MAX_INPUT) return fail(d);
    }
    return true;
}

/* A <seq-id>_ (base 36) as an index from 0 (S_ and T_ are 0, S0_ is 1). */
static bool seq_id(struct dm *d, size_t *n)
{
    *n = 0;
    if (eat(d, '_')) return true;
    size_t v = 0;
    for (char c; (c = peek(d, 0)) != '_';) {
        if (c >= '0' && c <= '9')
            v = v * 36 + (size_t)(c - '0');
        else if (c >= 'A' && c <= 'Z')
            v = v * 36 + (size_t)(c - 'A' + 10);
        else
            return fail(d);
        if (v > DM_MAX_SUBS) return fail(d);
        d->p++;
    }
    d->p++;
    *n = v + 1;
    return true;
}

static void add_sub(struct dm *d, struct type t)
{
    if (d->nsubs < DM_MAX_SUBS)
        d->subs[d->nsubs++] = t;
    else
        d->fail = true;
}

static bool enter(struct dm *d)
{
    if (++d->depth > DM_MAX_DEPTH) return fail(d);
    return !d->fail;
}

static struct type parse_type(struct dm *d);
static struct str parameters(struct dm *d, bool top);
static struct name parse_name(struct dm *d);
static struct str parse_encoding(struct dm *d, unsigned flags);

/* ---- names ---- */

/* <source-name>: a length and that many characters. */
static struct str source_name(struct dm *d)
{
    size_t n;
    if (!number(d, &n) || n == 0 || n > (size_t)(d->end - d->p)) return fail(d), EMPTY;
    const char *s = d->p;
    d->p += n;
    if (n >= 10 && memcmp(s, "_GLOBAL__N", 10) == 0) return make(d, "(anonymous namespace)");
    uint32_t m = mark(d);
    add_bytes(d, s, n);
    return done(d, m);
}

struct op {
    char code[3];
    const char *text;
};

static const struct op OPS[] = {
    {"nw", "new"}, {"na", "new[]"}, {"dl", "delete"}, {"da", "delete[]"}, {"ps", "+"},  {"ng", "-"},  {"ad", "&"},
    {"de", "*"},   {"co", "~"},     {"pl", "+"},      {"mi", "-"},        {"ml", "*"},  {"dv", "/"},  {"rm", "%"},
    {"an", "&"},   {"or", "|"},     {"eo", "^"},      {"aS", "="},        {"pL", "+="}, {"mI", "-="}, {"mL", "*="},
    {"dV", "/="},  {"rM", "%="},    {"aN", "&="},     {"oR", "|="},       {"eO", "^="}, {"ls", "<<"}, {"rs", ">>"},
    {"lS", "<<="}, {"rS", ">>="},   {"eq", "=="},     {"ne", "!="},       {"lt", "<"},  {"gt", ">"},  {"le", "<="},
    {"ge", ">="},  {"ss", "<=>"},   {"nt", "!"},      {"aa", "&&"},       {"oo", "||"}, {"pp", "++"}, {"mm", "--"},
    {"cm", ","},   {"pm", "->*"},   {"pt", "->"},     {"cl", "()"},       {"ix", "[]"}, {"qu", "?"},
};

/* An <operator-name>: "operator+", "operator new", "operator int" (a conversion). */
static struct str operator_name(struct dm *d, bool *conversion)
{
    char a = peek(d, 0), b = peek(d, 1);
    uint32_t m;
    if (a == 'c' && b == 'v') {
        d->p += 2;
        d->type_nest++;
        struct type t = parse_type(d);
        d->type_nest--;
        *conversion = true;
        m = mark(d);
        lit(d, "operator ");
        add(d, type_text(d, &t));
        return done(d, m);
    }
    if (a == 'l' && b == 'i') {
        d->p += 2;
        struct str s = source_name(d);
        m = mark(d);
        lit(d, "operator\"\" ");
        add(d, s);
        return done(d, m);
    }
    for (size_t i = 0; i < sizeof OPS / sizeof *OPS; i++)
        if (OPS[i].code[0] == a && OPS[i].code[1] == b) {
            d->p += 2;
            m = mark(d);
            lit(d, "operator");
            if (OPS[i].text[0] >= 'a' && OPS[i].text[0] <= 'z') lit(d, " ");
            lit(d, OPS[i].text);
            return done(d, m);
        }
    return fail(d), EMPTY;
}

/* Ul <params> E [n] _: "{lambda(int)#1}"; Ut [n] _: "{unnamed type#1}". */
static struct str unnamed(struct dm *d)
{
    bool lambda = peek(d, 1) == 'l';
    d->p += 2;
    struct str params = EMPTY;
    uint32_t m;
    if (lambda) {
        d->type_nest++;
        params = parameters(d, false);
        if (!eat(d, 'E')) fail(d);
        d->type_nest--;
    }
    size_t n = 1; /* no number: the first; n: the (n + 2)th */
    if (peek(d, 0) != '_') {
        if (!number(d, &n)) return EMPTY;
        n += 2;
    }
    if (!eat(d, '_')) return fail(d), EMPTY;
    m = mark(d);
    lit(d, lambda ? "{lambda(" : "{unnamed type#");
    if (lambda) {
        add(d, params);
        lit(d, ")#");
    }
    add_number(d, n);
    lit(d, "}");
    return done(d, m);
}

/* B <source-name>...: "[abi:cxx11]" after the name. */
static struct str abi_tags(struct dm *d, struct str s)
{
    while (!d->fail && peek(d, 0) == 'B') {
        d->p++;
        struct str tag = source_name(d);
        uint32_t m = mark(d);
        add(d, s);
        lit(d, "[abi:");
        add(d, tag);
        lit(d, "]");
        s = done(d, m);
    }
    return s;
}

/* An <unqualified-name>; simple is the class name for constructors and destructors
 * (the previous component), and gets this one's when it is a source name. */
static struct str unqualified(struct dm *d, struct str *simple, struct name *info)
{
    char c = peek(d, 0);
    struct str s;
    if (c == 'L') d->p++, c = peek(d, 0); /* internal linkage, in local names */
    if (c >= '0' && c <= '9') {
        s = source_name(d);
        *simple = s;
    } else if (c == 'C' && peek(d, 1) == 'I' && (peek(d, 2) == '1' || peek(d, 2) == '2')) {
        d->p += 3;
        d->type_nest++;
        parse_type(d); /* the base class of an inheriting constructor */
        d->type_nest--;
        s = *simple;
        info->no_return = true;
    } else if (c == 'C' && peek(d, 1) >= '1' && peek(d, 1) <= '5') {
        d->p += 2;
        s = *simple;
        info->no_return = true;
    } else if (c == 'D' && strchr("01245", peek(d, 1)) && peek(d, 1)) {
        d->p += 2;
        uint32_t m = mark(d);
        lit(d, "~");
        add(d, *simple);
        s = done(d, m);
        info->no_return = true;
    } else if (c == 'U' && (peek(d, 1) == 'l' || peek(d, 1) == 't')) {
        s = unnamed(d);
    } else if (c >= 'a' && c <= 'z') {
        bool conversion = false;
        s = operator_name(d, &conversion);
        if (conversion) info->no_return = true;
    } else {
        return fail(d), EMPTY;
    }
    if (info->no_return && !s.len && !d->fail) return fail(d), EMPTY; /* a constructor of nothing */
    return abi_tags(d, s);
}

/* <template-args>: "<int, char>", each argument a substitution candidate if a type. */
static struct str template_args(struct dm *d)
{
    if (!enter(d)) return EMPTY;
    d->p++; /* I */
    struct type args[DM_MAX_TARGS];
    int n = 0;
    d->type_nest++;
    struct str list = EMPTY;
    while (!d->fail && !eat(d, 'E')) {
        if (d->p >= d->end || n >= DM_MAX_TARGS) {
            fail(d);
            break;
        }
        struct type t;
        if (peek(d, 0) == 'L') {
            d->p++;
            if (peek(d, 0) == '_' && peek(d, 1) == 'Z') {
                d->p += 2;
                t = plain(parse_encoding(d, 0));
            } else {
                struct type lt = parse_type(d);
                struct str ty = type_text(d, &lt);
                bool neg = eat(d, 'n');
                const char *digits = d->p;
                while (peek(d, 0) && peek(d, 0) != 'E') d->p++;
                size_t nd = (size_t)(d->p - digits);
                uint32_t lm = mark(d);
                const char *tn = d->arena + ty.off;
                if (ty.len == 4 && memcmp(tn, "bool", 4) == 0 && nd == 1) {
                    lit(d, digits[0] == '0' ? "false" : "true");
                } else {
                    bool suffixed = ty.len == 3 && memcmp(tn, "int", 3) == 0;
                    static const char *const suffix[][2] = {{"unsigned int", "u"},
                                                            {"long", "l"},
                                                            {"unsigned long", "ul"},
                                                            {"long long", "ll"},
                                                            {"unsigned long long", "ull"}};
                    const char *suf = NULL;
                    for (size_t i = 0; i < 5; i++)
                        if (ty.len == strlen(suffix[i][0]) && memcmp(tn, suffix[i][0], ty.len) == 0) suf = suffix[i][1];
                    if (!suffixed && !suf) {
                        lit(d, "(");
                        add(d, ty);
                        lit(d, ")");
                    }
                    if (neg) lit(d, "-");
                    add_bytes(d, digits, nd);
                    if (suf) lit(d, suf);
                }
                t = plain(done(d, lm));
            }
            if (!eat(d, 'E')) fail(d);
        } else if (peek(d, 0) == 'J') { /* a pack: its types, as one argument */
            d->p++;
            struct str pack = EMPTY;
            while (!d->fail && !eat(d, 'E')) {
                if (d->p >= d->end) return fail(d), EMPTY;
                struct type e = parse_type(d);
                pack = join(d, pack, ", ", type_text(d, &e));
            }
            t = plain(pack);
        } else if (peek(d, 0) == 'X') {
            fail(d); /* expressions: left mangled */
            break;
        } else {
            t = parse_type(d);
        }
        if (d->fail) break;
        args[n++] = t;
        list = join(d, list, ", ", type_text(d, &t));
    }
    uint32_t m = mark(d);
    lit(d, "<");
    add(d, list);
    if (last_char(d, list) == '>') lit(d, " ");
    lit(d, ">");
    d->type_nest--;
    if (!d->fail && d->type_nest == 0) {
        memcpy(d->targs, args, (size_t)n * sizeof *args);
        d->ntargs = n;
    }
    d->depth--;
    return done(d, m);
}

/* The standard abbreviations: Sa, Sb, Ss, Si, So, Sd (St is a prefix of its own). */
static bool std_sub(struct dm *d, struct type *t)
{
    static const char *const full[][3] = {
        {"a", "std::allocator", "allocator"},   {"b", "std::basic_string", "basic_string"},
        {"s", "std::string", "basic_string"},   {"i", "std::istream", "basic_istream"},
        {"o", "std::ostream", "basic_ostream"}, {"d", "std::iostream", "basic_iostream"},
    };
    for (size_t i = 0; i < 6; i++)
        if (peek(d, 1) == full[i][0][0]) {
            d->p += 2;
            *t = plain(make(d, full[i][1]));
            t->simple = make(d, full[i][2]);
            return true;
        }
    return false;
}

/* <substitution>: S_, S<seq-id>_, or a standard abbreviation. */
static struct type substitution(struct dm *d)
{
    struct type t = plain(EMPTY);
    if (std_sub(d, &t)) return t;
    d->p++;
    size_t i;
    if (!seq_id(d, &i)) return t;
    if ((int)i >= d->nsubs) return fail(d), t;
    return d->subs[i];
}

/* <template-param>: T_, T<n>_; the function's (or class's) template argument. */
static struct type template_param(struct dm *d)
{
    d->p++;
    size_t i;
    if (!seq_id(d, &i)) return plain(EMPTY);
    if ((int)i >= d->ntargs) return fail(d), plain(EMPTY);
    return d->targs[i];
}

/* The cv- and ref-qualifiers of a nested name: a member function's. */
static struct str member_quals(struct dm *d)
{
    uint32_t m = mark(d);
    if (eat(d, 'r')) lit(d, " restrict");
    if (eat(d, 'V')) lit(d, " volatile");
    if (eat(d, 'K')) lit(d, " const");
    if (eat(d, 'R'))
        lit(d, " &");
    else if (eat(d, 'O'))
        lit(d, " &&");
    return done(d, m);
}

/* N [quals] <prefix components> E. Every prefix but the whole is a candidate. */
static struct name nested(struct dm *d)
{
    struct name n = {0};
    d->p++;
    n.quals = member_quals(d);
    struct str s = EMPTY, simple = EMPTY;
    while (!d->fail && !eat(d, 'E')) {
        char c = peek(d, 0);
        struct type t;
        if (d->p >= d->end) return fail(d), n;
        n.no_return = false;
        if (c == 'S' && peek(d, 1) == 't') {
            d->p += 2;
            s = join(d, s, "::", make(d, "std"));
            continue; /* St is no candidate */
        } else if (c == 'S') {
            if (s.len) return fail(d), n;
            t = substitution(d);
            s = t.left;
            simple = t.simple;
            n.is_template = false;
            if (peek(d, 0) == 'E') n.s = s;
            continue; /* no candidate: it is one already */
        } else if (c == 'T') {
            if (s.len) return fail(d), n;
            t = template_param(d);
            s = type_text(d, &t);
            simple = t.simple;
            n.is_template = false;
        } else if (c == 'I') {
            if (!s.len) return fail(d), n;
            s = join(d, s, "", template_args(d));
            n.is_template = true;
        } else if (c == 'D' && (peek(d, 1) == 't' || peek(d, 1) == 'T')) {
            return fail(d), n; /* decltype */
        } else if (c == 'M') {
            d->p++; /* a lambda's scope in an initializer: the name before it is enough */
            continue;
        } else {
            struct str u = unqualified(d, &simple, &n);
            s = join(d, s, "::", u);
            n.is_template = false;
        }
        if (peek(d, 0) != 'E') {
            struct type sub = plain(s);
            sub.simple = simple;
            add_sub(d, sub);
        }
    }
    n.s = s;
    n.simple = simple;
    return n;
}

/* Z <encoding> E <entity> [discriminator]: "f()::x". */
static struct name local(struct dm *d, unsigned flags)
{
    struct name n = {0};
    d->p++;
    struct str fn = parse_encoding(d, flags | DM_NO_RETURN);
    if (!eat(d, 'E')) return fail(d), n;
    struct str entity;
    if (eat(d, 's')) {
        entity = make(d, "string literal");
    } else {
        struct name inner = parse_name(d);
        entity = inner.s;
        n.quals = inner.quals;
        n.is_template = inner.is_template;
        n.no_return = inner.no_return;
    }
    if (eat(d, '_')) { /* a discriminator: _n or __n_ */
        size_t k;
        if (eat(d, '_')) {
            number(d, &k);
            eat(d, '_');
        } else {
            number(d, &k);
        }
    }
    n.s = join(d, fn, "::", entity);
    return n;
}

/* <name>: nested, local, std::, or unscoped, with template arguments after. */
static struct name parse_name(struct dm *d)
{
    struct name n = {0};
    if (!enter(d)) return n;
    char c = peek(d, 0);
    if (c == 'N')
        n = nested(d);
    else if (c == 'Z')
        n = local(d, d->flags);
    else {
        struct str prefix = EMPTY, simple = EMPTY;
        if (c == 'S' && peek(d, 1) == 't') {
            d->p += 2;
            prefix = make(d, "std");
        } else if (c == 'S') {
            struct type t = substitution(d);
            if (peek(d, 0) != 'I') fail(d);
            n.s = t.left;
            n.simple = t.simple;
        }
        if (!n.s.len && !d->fail) {
            n.s = join(d, prefix, "::", unqualified(d, &simple, &n));
            n.simple = simple;
            if (peek(d, 0) == 'I') add_sub(d, plain(n.s)); /* an unscoped template name */
        }
        if (peek(d, 0) == 'I' && !d->fail) {
            n.s = join(d, n.s, "", template_args(d));
            n.is_template = true;
        }
    }
    d->depth--;
    return n;
}

/* ---- types ---- */

static const char *builtin(char c)
{
    switch (c) {
    case 'v': return "void";
    case 'w': return "wchar_t";
    case 'b': return "bool";
    case 'c': return "char";
    case 'a': return "signed char";
    case 'h': return "unsigned char";
    case 's': return "short";
    case 't': return "unsigned short";
    case 'i': return "int";
    case 'j': return "unsigned int";
    case 'l': return "long";
    case 'm': return "unsigned long";
    case 'x': return "long long";
    case 'y': return "unsigned long long";
    case 'n': return "__int128";
    case 'o': return "unsigned __int128";
    case 'f': return "float";
    case 'd': return "double";
    case 'e': return "long double";
    case 'g': return "__float128";
    case 'z': return "...";
    default: return NULL;
    }
}

static const char *builtin_d(char c)
{
    switch (c) {
    case 'd': return "decimal64";
    case 'e': return "decimal128";
    case 'f': return "decimal32";
    case 'h': return "half";
    case 'i': return "char32_t";
    case 's': return "char16_t";
    case 'u': return "char8_t";
    case 'a': return "auto";
    case 'c': return "decltype(auto)";
    case 'n': return "decltype(nullptr)";
    default: return NULL;
    }
}

/* A pointer, reference or qualifier (op: "*", "&", "&&", " const", ...) applied to t. */
static struct type apply(struct dm *d, struct type t, const char *op, bool qualifier)
{
    uint32_t m = mark(d);
    if (qualifier && t.kind == T_FUNC) { /* a function's own qualifier: after its parameters */
        t.right = join(d, t.right, "", make(d, op));
        return t;
    }
    add(d, t.left);
    if (t.kind == T_FUNC || t.kind == T_ARRAY) {
        lit(d, t.kind == T_FUNC ? " (" : " (");
        lit(d, op);
        struct str left = done(d, m);
        uint32_t r = mark(d);
        lit(d, ")");
        add(d, t.right);
        t.right = done(d, r);
        t.left = left;
        t.kind = T_GROUPED;
        return t;
    }
    lit(d, op);
    t.left = done(d, m);
    t.simple = EMPTY;
    return t;
}

/* The types of a parameter list until E (or the input's end at the top level):
 * "int, char const*"; a lone void is no parameter. */
static struct str parameters(struct dm *d, bool top)
{
    struct str list = EMPTY;
    for (int i = 0; !d->fail; i++) {
        char c = peek(d, 0);
        if (c == 'E' || (top && (c == 0 || c == '.'))) break;
        if (!c) return fail(d), EMPTY;
        struct type t = parse_type(d);
        struct str s = type_text(d, &t);
        if (i == 0 && s.len == 4 && memcmp(d->arena + s.off, "void", 4) == 0) continue;
        list = join(d, list, ", ", s);
    }
    return list;
}

/* F [Y] <return type> <parameters> [ref-qualifier] E. */
static struct type function_type(struct dm *d)
{
    d->p++;
    eat(d, 'Y');
    struct type ret = parse_type(d);
    struct str params = parameters(d, false);
    struct str ref = EMPTY;
    if (peek(d, 0) == 'R' && peek(d, 1) == 'E')
        d->p++, ref = make(d, " &");
    else if (peek(d, 0) == 'O' && peek(d, 1) == 'E')
        d->p++, ref = make(d, " &&");
    if (!eat(d, 'E')) fail(d);
    uint32_t m = mark(d);
    lit(d, "(");
    add(d, params);
    lit(d, ")");
    add(d, ref);
    struct type t = {type_text(d, &ret), done(d, m), EMPTY, T_FUNC};
    return t;
}

/* A <number> _ <type>, or A _ <type>: "int [10]". */
static struct type array_type(struct dm *d)
{
    d->p++;
    const char *dim = d->p;
    size_t n;
    if (peek(d, 0) == 'T') { /* a dimension given by a template parameter */
        struct type p = template_param(d);
        struct str s = type_text(d, &p);
        dim = d->arena + s.off;
        n = s.len;
    } else {
        while (peek(d, 0) >= '0' && peek(d, 0) <= '9') d->p++;
        n = (size_t)(d->p - dim);
    }
    if (!eat(d, '_')) return fail(d), plain(EMPTY);
    struct type elem = parse_type(d);
    uint32_t m = mark(d);
    lit(d, elem.kind == T_ARRAY ? " [" : " [");
    add_bytes(d, dim, n);
    lit(d, "]");
    if (elem.kind == T_ARRAY)
        add_bytes(d, d->arena + elem.right.off + 1, elem.right.len ? elem.right.len - 1 : 0);
    else if (elem.right.len)
        return fail(d), plain(EMPTY);
    struct type t = {elem.left, done(d, m), EMPTY, T_ARRAY};
    return t;
}

/* M <class type> <member type>: "int C::*", "void (C::*)(int)". */
static struct type member_pointer(struct dm *d)
{
    d->p++;
    struct type cls = parse_type(d);
    struct type mem = parse_type(d);
    struct str c = type_text(d, &cls);
    uint32_t m = mark(d);
    add(d, mem.left);
    lit(d, mem.kind == T_FUNC ? " (" : " ");
    add(d, c);
    lit(d, "::*");
    struct str left = done(d, m);
    if (mem.kind == T_FUNC) {
        uint32_t r = mark(d);
        lit(d, ")");
        add(d, mem.right);
        return (struct type){left, done(d, r), EMPTY, T_GROUPED};
    }
    if (mem.right.len) return fail(d), plain(EMPTY);
    return plain(left);
}

/* A class or enum by name: a candidate as a whole. */
static struct type class_type(struct dm *d)
{
    struct name n = parse_name(d);
    struct type t = plain(n.s);
    t.simple = n.simple;
    add_sub(d, t);
    return t;
}

/* The types made of other types: qualified, pointers, references. */
static struct type compound(struct dm *d, char c)
{
    if (c == 'r' || c == 'V' || c == 'K') {
        bool r = eat(d, 'r'), v = eat(d, 'V'), k = eat(d, 'K'); /* shown the other way round */
        uint32_t m = mark(d);
        if (k) lit(d, " const");
        if (v) lit(d, " volatile");
        if (r) lit(d, " restrict");
        struct str quals = done(d, m);
        char qtext[32] = "";
        if (quals.len >= sizeof qtext) return fail(d), plain(EMPTY);
        memcpy(qtext, d->arena + quals.off, quals.len);
        qtext[quals.len] = 0;
        return apply(d, parse_type(d), qtext, true);
    }
    d->p++;
    struct type inner = parse_type(d);
    if (c == 'P') return apply(d, inner, "*", false);
    if (c == 'R') return apply(d, inner, "&", false);
    return apply(d, inner, "&&", false);
}

static struct type parse_type(struct dm *d)
{
    struct type t = plain(EMPTY);
    if (!enter(d)) return t;
    char c = peek(d, 0);
    const char *b;
    bool candidate = true;
    d->type_nest++;
    if ((b = builtin(c)) != NULL) {
        d->p++;
        t = plain(make(d, b));
        candidate = false;
    } else if (c == 'D' && (b = builtin_d(peek(d, 1))) != NULL) {
        d->p += 2;
        t = plain(make(d, b));
        candidate = false;
    } else if (c == 'u') {
        d->p++;
        t = plain(source_name(d));
    } else if (strchr("rVKPRO", c) && c) {
        t = compound(d, c);
    } else if (c == 'F') {
        t = function_type(d);
    } else if (c == 'A') {
        t = array_type(d);
    } else if (c == 'M') {
        t = member_pointer(d);
    } else if (c == 'T') {
        t = template_param(d);
        if (peek(d, 0) == 'I') {
            add_sub(d, t);
            t = plain(join(d, type_text(d, &t), "", template_args(d)));
        }
    } else if (c == 'S' && peek(d, 1) != 't') {
        t = substitution(d);
        candidate = false;
        if (peek(d, 0) == 'I') {
            t = plain(join(d, type_text(d, &t), "", template_args(d)));
            candidate = true;
        }
    } else if ((c >= '0' && c <= '9') || c == 'N' || c == 'Z' || c == 'S') {
        t = class_type(d);
        candidate = false; /* class_type added it */
    } else {
        fail(d);
    }
    if (candidate && !d->fail) add_sub(d, t);
    d->type_nest--;
    d->depth--;
    return t;
}

/* ---- encodings ---- */

/* A thunk's call offset: h <number> _ or v <number> _ <number> _ (numbers may start n). */
static void call_offset(struct dm *d)
{
    size_t n;
    int parts = eat(d, 'h') ? 1 : eat(d, 'v') ? 2 : 0;
    if (!parts) fail(d);
    for (int i = 0; i < parts && !d->fail; i++) {
        eat(d, 'n');
        if (number(d, &n) && !eat(d, '_')) fail(d);
    }
}

static struct str prefixed(struct dm *d, const char *what, struct str s)
{
    uint32_t m = mark(d);
    lit(d, what);
    add(d, s);
    return done(d, m);
}

/* The special names: virtual tables, type information, thunks, guard variables. */
static struct str special(struct dm *d, unsigned flags)
{
    static const char *const of_type[][2] = {
        {"TV", "vtable for "}, {"TT", "VTT for "}, {"TI", "typeinfo for "}, {"TS", "typeinfo name for "}};
    static const char *const of_name[][2] = {
        {"GV", "guard variable for "}, {"TH", "TLS init function for "}, {"TW", "TLS wrapper function for "}};
    for (size_t i = 0; i < 4; i++)
        if (peek(d, 0) == of_type[i][0][0] && peek(d, 1) == of_type[i][0][1]) {
            d->p += 2;
            struct type t = parse_type(d);
            return prefixed(d, of_type[i][1], type_text(d, &t));
        }
    for (size_t i = 0; i < 3; i++)
        if (peek(d, 0) == of_name[i][0][0] && peek(d, 1) == of_name[i][0][1]) {
            d->p += 2;
            return prefixed(d, of_name[i][1], parse_name(d).s);
        }
    if (peek(d, 0) == 'T' && (peek(d, 1) == 'h' || peek(d, 1) == 'v' || peek(d, 1) == 'c')) {
        char k = peek(d, 1);
        d->p++;
        call_offset(d);
        if (k == 'c') call_offset(d);
        const char *what = k == 'h' ? "non-virtual thunk to "
            : k == 'v'              ? "virtual thunk to "
                                    : "covariant return thunk to ";
        return prefixed(d, what, parse_encoding(d, flags));
    }
    return fail(d), EMPTY;
}

static struct str parse_encoding(struct dm *d, unsigned flags)
{
    if (!enter(d)) return EMPTY;
    struct str out;
    int saved_nest = d->type_nest;
    char c = peek(d, 0);
    if ((c == 'T' || c == 'G') && peek(d, 1) && strchr("VTISHWhvc", peek(d, 1))) {
        out = special(d, flags);
    } else {
        saved_nest = d->type_nest;
        d->type_nest = 0; /* the name's template arguments are the ones T_ means */
        struct name n = parse_name(d);
        d->type_nest = saved_nest;
        c = peek(d, 0);
        out = n.s;
        if (!d->fail && c && c != 'E' && c != '.') { /* a function: its parameter types follow */
            struct str ret = EMPTY;
            if (n.is_template && !n.no_return) {
                struct type r = parse_type(d);
                ret = type_text(d, &r);
            }
            struct str params = parameters(d, true);
            if (flags & NDM_PARAMS) {
                uint32_t m = mark(d);
                if (ret.len && saved_nest == 0 && !(flags & DM_NO_RETURN)) add(d, ret), lit(d, " ");
                add(d, n.s);
                lit(d, "(");
                add(d, params);
                lit(d, ")");
                add(d, n.quals);
                out = done(d, m);
            }
        }
    }
    d->depth--;
    return out;
}

/* Clone suffixes, ".constprop.0.cold": " [clone .constprop.0] [clone .cold]". */
static bool clones(struct dm *d, struct str *s)
{
    while (!d->fail && eat(d, '.')) {
        const char *from = d->p - 1;
        while (peek(d, 0) && peek(d, 0) != '.') d->p++;
        if (d->p == from + 1) return fail(d); /* an empty suffix */
        while (peek(d, 0) == '.' && peek(d, 1) >= '0' && peek(d, 1) <= '9') {
            d->p++;
            while (peek(d, 0) >= '0' && peek(d, 0) <= '9') d->p++;
        }
        uint32_t m = mark(d);
        add(d, *s);
        lit(d, " [clone ");
        add_bytes(d, from, (size_t)(d->p - from));
        lit(d, "]");
        *s = done(d, m);
    }
    return !d->fail;
}

/* The name as it is; without NDM_PARAMS, without its clone suffixes ("f.part.0"). */
static bool copy_as_is(const char *name, unsigned flags, char *out, size_t cap)
{
    if (cap == 0) return false;
    size_t n = strnlen(name, cap - 1);
    const char *dot = (flags & NDM_PARAMS) || n == 0 ? NULL : memchr(name + 1, '.', n - 1);
    if (dot) n = (size_t)(dot - name);
    memcpy(out, name, n);
    out[n] = 0;
    return false;
}

bool ndm_demangle(const char *name, unsigned flags, char *out, size_t cap)
{
    size_t len = strnlen(name, NDM_MAX_INPUT + 1);
    if (len < 3 || len > NDM_MAX_INPUT || name[0] != '_' || name[1] != 'Z') return copy_as_is(name, flags, out, cap);
    struct dm *d = malloc(sizeof *d);
    char *arena = malloc(DM_ARENA);
    bool ok = false;
    if (d && arena) {
        memset(d, 0, sizeof *d);
        d->arena = arena;
        d->flags = flags;
        d->p = name + 2;
        d->end = name + len;
        struct str s = parse_encoding(d, flags);
        if (!d->fail && peek(d, 0) == '.') {
            if (flags & NDM_PARAMS)
                clones(d, &s);
            else
                d->p = d->end;
        }
        ok = !d->fail && d->p == d->end && s.len > 0 && s.len < cap;
        if (ok) {
            memcpy(out, d->arena + s.off, s.len);
            out[s.len] = 0;
        }
    }
    free(arena);
    free(d);
    return ok ? true : copy_as_is(name, flags, out, cap);
}
