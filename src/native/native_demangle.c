/* SPDX-License-Identifier: Apache-2.0 */
/* An Itanium C++ ABI demangler, bounded (native_demangle.h). Each parse function reads
 * from d->p and returns pieces of text in the arena; a failure sets d->fail and every
 * caller unwinds. Substitution candidates are recorded in the order the ABI gives. */
#include "native/native_demangle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_demangle_codes.h"
#include "native/native_demangle_text.h"

_Static_assert(DM_MAX_NUMBER == NDM_MAX_INPUT, "a length is never past the input");

#define DM_NO_RETURN 0x100u /* a local name's function: shown without its return type */

/* What a name parse found out. */
struct name {
    struct str s, simple;        /* the whole, and its last source name */
    struct str quals;            /* a member function's " const", " &", ... */
    bool is_template, no_return; /* no return type encoded: a constructor, ... */
};

static const struct str EMPTY = {0, 0};

static char last_char(struct dm *d, struct str s) { return s.len ? d->arena[s.off + s.len - 1] : 0; }

static struct type plain(struct str s) { return (struct type){s, EMPTY, EMPTY, T_PLAIN}; }

static struct type parse_type(struct dm *d);
static struct str parameters(struct dm *d, bool top);
static struct name parse_name(struct dm *d);
static struct str parse_encoding(struct dm *d, unsigned flags);

/* ---- names ---- */

/* <source-name>: a length and that many characters. */
static struct str source_name(struct dm *d)
{
    size_t n;
    if (!dm_number(d, &n) || n == 0 || n > (size_t)(d->end - d->p)) return dm_fail(d), EMPTY;
    const char *s = d->p;
    d->p += n;
    if (n >= 10 && memcmp(s, "_GLOBAL__N", 10) == 0) return dm_make(d, "(anonymous namespace)");
    uint32_t m = dm_mark(d);
    dm_add_bytes(d, s, n);
    return dm_done(d, m);
}

/* An <operator-name>: "operator+", "operator new", "operator int" (a conversion). */
static struct str operator_name(struct dm *d, bool *conversion)
{
    char a = dm_peek(d, 0), b = dm_peek(d, 1);
    uint32_t m;
    if (a == 'c' && b == 'v') {
        d->p += 2;
        d->type_nest++;
        struct type t = parse_type(d);
        d->type_nest--;
        *conversion = true;
        m = dm_mark(d);
        dm_lit(d, "operator ");
        dm_add(d, dm_type_text(d, &t));
        return dm_done(d, m);
    }
    if (a == 'l' && b == 'i') {
        d->p += 2;
        struct str s = source_name(d);
        m = dm_mark(d);
        dm_lit(d, "operator\"\" ");
        dm_add(d, s);
        return dm_done(d, m);
    }
    const char *op = dm_operator(a, b);
    if (op) {
        d->p += 2;
        m = dm_mark(d);
        dm_lit(d, "operator");
        if (op[0] >= 'a' && op[0] <= 'z') dm_lit(d, " ");
        dm_lit(d, op);
        return dm_done(d, m);
    }
    return dm_fail(d), EMPTY;
}

/* Ul <params> E [n] _: "{lambda(int)#1}"; Ut [n] _: "{unnamed type#1}". */
static struct str unnamed(struct dm *d)
{
    bool lambda = dm_peek(d, 1) == 'l';
    d->p += 2;
    struct str params = EMPTY;
    uint32_t m;
    if (lambda) {
        d->type_nest++;
        params = parameters(d, false);
        if (!dm_eat(d, 'E')) dm_fail(d);
        d->type_nest--;
    }
    size_t n = 1; /* no number: the first; n: the (n + 2)th */
    if (dm_peek(d, 0) != '_') {
        if (!dm_number(d, &n)) return EMPTY;
        n += 2;
    }
    if (!dm_eat(d, '_')) return dm_fail(d), EMPTY;
    m = dm_mark(d);
    dm_lit(d, lambda ? "{lambda(" : "{unnamed type#");
    if (lambda) {
        dm_add(d, params);
        dm_lit(d, ")#");
    }
    dm_add_number(d, n);
    dm_lit(d, "}");
    return dm_done(d, m);
}

/* B <source-name>...: "[abi:cxx11]" after the name. */
static struct str abi_tags(struct dm *d, struct str s)
{
    while (!d->fail && dm_peek(d, 0) == 'B') {
        d->p++;
        struct str tag = source_name(d);
        uint32_t m = dm_mark(d);
        dm_add(d, s);
        dm_lit(d, "[abi:");
        dm_add(d, tag);
        dm_lit(d, "]");
        s = dm_done(d, m);
    }
    return s;
}

/* An <unqualified-name>; simple is the class name for constructors and destructors
 * (the previous component), and gets this one's when it is a source name. */
static struct str unqualified(struct dm *d, struct str *simple, struct name *info)
{
    char c = dm_peek(d, 0);
    struct str s;
    if (c == 'L') d->p++, c = dm_peek(d, 0); /* internal linkage, in local names */
    if (c >= '0' && c <= '9') {
        s = source_name(d);
        *simple = s;
    } else if (c == 'C' && dm_peek(d, 1) == 'I' && (dm_peek(d, 2) == '1' || dm_peek(d, 2) == '2')) {
        d->p += 3;
        d->type_nest++;
        parse_type(d); /* the base class of an inheriting constructor */
        d->type_nest--;
        s = *simple;
        info->no_return = true;
    } else if (c == 'C' && dm_peek(d, 1) >= '1' && dm_peek(d, 1) <= '5') {
        d->p += 2;
        s = *simple;
        info->no_return = true;
    } else if (c == 'D' && strchr("01245", dm_peek(d, 1)) && dm_peek(d, 1)) {
        d->p += 2;
        uint32_t m = dm_mark(d);
        dm_lit(d, "~");
        dm_add(d, *simple);
        s = dm_done(d, m);
        info->no_return = true;
    } else if (c == 'U' && (dm_peek(d, 1) == 'l' || dm_peek(d, 1) == 't')) {
        s = unnamed(d);
    } else if (c >= 'a' && c <= 'z') {
        bool conversion = false;
        s = operator_name(d, &conversion);
        if (conversion) info->no_return = true;
    } else {
        return dm_fail(d), EMPTY;
    }
    if (info->no_return && !s.len && !d->fail) return dm_fail(d), EMPTY; /* a constructor of nothing */
    return abi_tags(d, s);
}

/* <template-args>: "<int, char>", each argument a substitution candidate if a type. */
static struct str template_args(struct dm *d)
{
    if (!dm_enter(d)) return EMPTY;
    d->p++; /* I */
    struct type args[DM_MAX_TARGS];
    int n = 0;
    d->type_nest++;
    struct str list = EMPTY;
    while (!d->fail && !dm_eat(d, 'E')) {
        if (d->p >= d->end || n >= DM_MAX_TARGS) {
            dm_fail(d);
            break;
        }
        struct type t;
        if (dm_peek(d, 0) == 'L') {
            d->p++;
            if (dm_peek(d, 0) == '_' && dm_peek(d, 1) == 'Z') {
                d->p += 2;
                t = plain(parse_encoding(d, 0));
            } else {
                struct type lt = parse_type(d);
                struct str ty = dm_type_text(d, &lt);
                bool neg = dm_eat(d, 'n');
                const char *digits = d->p;
                while (dm_peek(d, 0) && dm_peek(d, 0) != 'E') d->p++;
                size_t nd = (size_t)(d->p - digits);
                uint32_t lm = dm_mark(d);
                const char *tn = d->arena + ty.off;
                if (ty.len == 4 && memcmp(tn, "bool", 4) == 0 && nd == 1) {
                    dm_lit(d, digits[0] == '0' ? "false" : "true");
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
                        dm_lit(d, "(");
                        dm_add(d, ty);
                        dm_lit(d, ")");
                    }
                    if (neg) dm_lit(d, "-");
                    dm_add_bytes(d, digits, nd);
                    if (suf) dm_lit(d, suf);
                }
                t = plain(dm_done(d, lm));
            }
            if (!dm_eat(d, 'E')) dm_fail(d);
        } else if (dm_peek(d, 0) == 'J') { /* a pack: its types, as one argument */
            d->p++;
            struct str pack = EMPTY;
            while (!d->fail && !dm_eat(d, 'E')) {
                if (d->p >= d->end) return dm_fail(d), EMPTY;
                struct type e = parse_type(d);
                pack = dm_join(d, pack, ", ", dm_type_text(d, &e));
            }
            t = plain(pack);
        } else if (dm_peek(d, 0) == 'X') {
            dm_fail(d); /* expressions: left mangled */
            break;
        } else {
            t = parse_type(d);
        }
        if (d->fail) break;
        args[n++] = t;
        list = dm_join(d, list, ", ", dm_type_text(d, &t));
    }
    uint32_t m = dm_mark(d);
    dm_lit(d, "<");
    dm_add(d, list);
    if (last_char(d, list) == '>') dm_lit(d, " ");
    dm_lit(d, ">");
    d->type_nest--;
    if (!d->fail && d->type_nest == 0) {
        memcpy(d->targs, args, (size_t)n * sizeof *args);
        d->ntargs = n;
    }
    d->depth--;
    return dm_done(d, m);
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
        if (dm_peek(d, 1) == full[i][0][0]) {
            d->p += 2;
            *t = plain(dm_make(d, full[i][1]));
            t->simple = dm_make(d, full[i][2]);
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
    if (!dm_seq_id(d, &i)) return t;
    if ((int)i >= d->nsubs) return dm_fail(d), t;
    return d->subs[i];
}

/* <template-param>: T_, T<n>_; the function's (or class's) template argument. */
static struct type template_param(struct dm *d)
{
    d->p++;
    size_t i;
    if (!dm_seq_id(d, &i)) return plain(EMPTY);
    if ((int)i >= d->ntargs) return dm_fail(d), plain(EMPTY);
    return d->targs[i];
}

/* The cv- and ref-qualifiers of a nested name: a member function's. */
static struct str member_quals(struct dm *d)
{
    uint32_t m = dm_mark(d);
    if (dm_eat(d, 'r')) dm_lit(d, " restrict");
    if (dm_eat(d, 'V')) dm_lit(d, " volatile");
    if (dm_eat(d, 'K')) dm_lit(d, " const");
    if (dm_eat(d, 'R'))
        dm_lit(d, " &");
    else if (dm_eat(d, 'O'))
        dm_lit(d, " &&");
    return dm_done(d, m);
}

/* N [quals] <prefix components> E. Every prefix but the whole is a candidate. */
static struct name nested(struct dm *d)
{
    struct name n = {0};
    d->p++;
    n.quals = member_quals(d);
    struct str s = EMPTY, simple = EMPTY;
    while (!d->fail && !dm_eat(d, 'E')) {
        char c = dm_peek(d, 0);
        struct type t;
        if (d->p >= d->end) return dm_fail(d), n;
        n.no_return = false;
        if (c == 'S' && dm_peek(d, 1) == 't') {
            d->p += 2;
            s = dm_join(d, s, "::", dm_make(d, "std"));
            continue; /* St is no candidate */
        } else if (c == 'S') {
            if (s.len) return dm_fail(d), n;
            t = substitution(d);
            s = t.left;
            simple = t.simple;
            n.is_template = false;
            if (dm_peek(d, 0) == 'E') n.s = s;
            continue; /* no candidate: it is one already */
        } else if (c == 'T') {
            if (s.len) return dm_fail(d), n;
            t = template_param(d);
            s = dm_type_text(d, &t);
            simple = t.simple;
            n.is_template = false;
        } else if (c == 'I') {
            if (!s.len) return dm_fail(d), n;
            s = dm_join(d, s, "", template_args(d));
            n.is_template = true;
        } else if (c == 'D' && (dm_peek(d, 1) == 't' || dm_peek(d, 1) == 'T')) {
            return dm_fail(d), n; /* decltype */
        } else if (c == 'M') {
            d->p++; /* a lambda's scope in an initializer: the name before it is enough */
            continue;
        } else {
            struct str u = unqualified(d, &simple, &n);
            s = dm_join(d, s, "::", u);
            n.is_template = false;
        }
        if (dm_peek(d, 0) != 'E') {
            struct type sub = plain(s);
            sub.simple = simple;
            dm_add_sub(d, sub);
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
    if (!dm_eat(d, 'E')) return dm_fail(d), n;
    struct str entity;
    if (dm_eat(d, 's')) {
        entity = dm_make(d, "string literal");
    } else {
        struct name inner = parse_name(d);
        entity = inner.s;
        n.quals = inner.quals;
        n.is_template = inner.is_template;
        n.no_return = inner.no_return;
    }
    if (dm_eat(d, '_')) { /* a discriminator: _n or __n_ */
        size_t k;
        if (dm_eat(d, '_')) {
            dm_number(d, &k);
            dm_eat(d, '_');
        } else {
            dm_number(d, &k);
        }
    }
    n.s = dm_join(d, fn, "::", entity);
    return n;
}

/* <name>: nested, local, std::, or unscoped, with template arguments after. */
static struct name parse_name(struct dm *d)
{
    struct name n = {0};
    if (!dm_enter(d)) return n;
    char c = dm_peek(d, 0);
    if (c == 'N')
        n = nested(d);
    else if (c == 'Z')
        n = local(d, d->flags);
    else {
        struct str prefix = EMPTY, simple = EMPTY;
        if (c == 'S' && dm_peek(d, 1) == 't') {
            d->p += 2;
            prefix = dm_make(d, "std");
        } else if (c == 'S') {
            struct type t = substitution(d);
            if (dm_peek(d, 0) != 'I') dm_fail(d);
            n.s = t.left;
            n.simple = t.simple;
        }
        if (!n.s.len && !d->fail) {
            n.s = dm_join(d, prefix, "::", unqualified(d, &simple, &n));
            n.simple = simple;
            if (dm_peek(d, 0) == 'I') dm_add_sub(d, plain(n.s)); /* an unscoped template name */
        }
        if (dm_peek(d, 0) == 'I' && !d->fail) {
            n.s = dm_join(d, n.s, "", template_args(d));
            n.is_template = true;
        }
    }
    d->depth--;
    return n;
}

/* ---- types ---- */

/* A pointer, reference or qualifier (op: "*", "&", "&&", " const", ...) applied to t. */
static struct type apply(struct dm *d, struct type t, const char *op, bool qualifier)
{
    uint32_t m = dm_mark(d);
    if (qualifier && t.kind == T_FUNC) { /* a function's own qualifier: after its parameters */
        t.right = dm_join(d, t.right, "", dm_make(d, op));
        return t;
    }
    dm_add(d, t.left);
    if (t.kind == T_FUNC || t.kind == T_ARRAY) {
        dm_lit(d, t.kind == T_FUNC ? " (" : " (");
        dm_lit(d, op);
        struct str left = dm_done(d, m);
        uint32_t r = dm_mark(d);
        dm_lit(d, ")");
        dm_add(d, t.right);
        t.right = dm_done(d, r);
        t.left = left;
        t.kind = T_GROUPED;
        return t;
    }
    dm_lit(d, op);
    t.left = dm_done(d, m);
    t.simple = EMPTY;
    return t;
}

/* The types of a parameter list until E (or the input's end at the top level):
 * "int, char const*"; a lone void is no parameter. */
static struct str parameters(struct dm *d, bool top)
{
    struct str list = EMPTY;
    for (int i = 0; !d->fail; i++) {
        char c = dm_peek(d, 0);
        if (c == 'E' || (top && (c == 0 || c == '.'))) break;
        if (!c) return dm_fail(d), EMPTY;
        struct type t = parse_type(d);
        struct str s = dm_type_text(d, &t);
        if (i == 0 && s.len == 4 && memcmp(d->arena + s.off, "void", 4) == 0) continue;
        list = dm_join(d, list, ", ", s);
    }
    return list;
}

/* F [Y] <return type> <parameters> [ref-qualifier] E. */
static struct type function_type(struct dm *d)
{
    d->p++;
    dm_eat(d, 'Y');
    struct type ret = parse_type(d);
    struct str params = parameters(d, false);
    struct str ref = EMPTY;
    if (dm_peek(d, 0) == 'R' && dm_peek(d, 1) == 'E')
        d->p++, ref = dm_make(d, " &");
    else if (dm_peek(d, 0) == 'O' && dm_peek(d, 1) == 'E')
        d->p++, ref = dm_make(d, " &&");
    if (!dm_eat(d, 'E')) dm_fail(d);
    uint32_t m = dm_mark(d);
    dm_lit(d, "(");
    dm_add(d, params);
    dm_lit(d, ")");
    dm_add(d, ref);
    struct type t = {dm_type_text(d, &ret), dm_done(d, m), EMPTY, T_FUNC};
    return t;
}

/* A <number> _ <type>, or A _ <type>: "int [10]". */
static struct type array_type(struct dm *d)
{
    d->p++;
    const char *dim = d->p;
    size_t n;
    if (dm_peek(d, 0) == 'T') { /* a dimension given by a template parameter */
        struct type p = template_param(d);
        struct str s = dm_type_text(d, &p);
        dim = d->arena + s.off;
        n = s.len;
    } else {
        while (dm_peek(d, 0) >= '0' && dm_peek(d, 0) <= '9') d->p++;
        n = (size_t)(d->p - dim);
    }
    if (!dm_eat(d, '_')) return dm_fail(d), plain(EMPTY);
    struct type elem = parse_type(d);
    uint32_t m = dm_mark(d);
    dm_lit(d, elem.kind == T_ARRAY ? " [" : " [");
    dm_add_bytes(d, dim, n);
    dm_lit(d, "]");
    if (elem.kind == T_ARRAY)
        dm_add_bytes(d, d->arena + elem.right.off + 1, elem.right.len ? elem.right.len - 1 : 0);
    else if (elem.right.len)
        return dm_fail(d), plain(EMPTY);
    struct type t = {elem.left, dm_done(d, m), EMPTY, T_ARRAY};
    return t;
}

/* M <class type> <member type>: "int C::*", "void (C::*)(int)". */
static struct type member_pointer(struct dm *d)
{
    d->p++;
    struct type cls = parse_type(d);
    struct type mem = parse_type(d);
    struct str c = dm_type_text(d, &cls);
    uint32_t m = dm_mark(d);
    dm_add(d, mem.left);
    dm_lit(d, mem.kind == T_FUNC ? " (" : " ");
    dm_add(d, c);
    dm_lit(d, "::*");
    struct str left = dm_done(d, m);
    if (mem.kind == T_FUNC) {
        uint32_t r = dm_mark(d);
        dm_lit(d, ")");
        dm_add(d, mem.right);
        return (struct type){left, dm_done(d, r), EMPTY, T_GROUPED};
    }
    if (mem.right.len) return dm_fail(d), plain(EMPTY);
    return plain(left);
}

/* A class or enum by name: a candidate as a whole. */
static struct type class_type(struct dm *d)
{
    struct name n = parse_name(d);
    struct type t = plain(n.s);
    t.simple = n.simple;
    dm_add_sub(d, t);
    return t;
}

/* The types made of other types: qualified, pointers, references. */
static struct type compound(struct dm *d, char c)
{
    if (c == 'r' || c == 'V' || c == 'K') {
        bool r = dm_eat(d, 'r'), v = dm_eat(d, 'V'), k = dm_eat(d, 'K'); /* shown the other way round */
        uint32_t m = dm_mark(d);
        if (k) dm_lit(d, " const");
        if (v) dm_lit(d, " volatile");
        if (r) dm_lit(d, " restrict");
        struct str quals = dm_done(d, m);
        char qtext[32] = "";
        if (quals.len >= sizeof qtext) return dm_fail(d), plain(EMPTY);
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
    if (!dm_enter(d)) return t;
    char c = dm_peek(d, 0);
    const char *b;
    bool candidate = true;
    d->type_nest++;
    if ((b = dm_builtin(c)) != NULL) {
        d->p++;
        t = plain(dm_make(d, b));
        candidate = false;
    } else if (c == 'D' && (b = dm_builtin_d(dm_peek(d, 1))) != NULL) {
        d->p += 2;
        t = plain(dm_make(d, b));
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
        if (dm_peek(d, 0) == 'I') {
            dm_add_sub(d, t);
            t = plain(dm_join(d, dm_type_text(d, &t), "", template_args(d)));
        }
    } else if (c == 'S' && dm_peek(d, 1) != 't') {
        t = substitution(d);
        candidate = false;
        if (dm_peek(d, 0) == 'I') {
            t = plain(dm_join(d, dm_type_text(d, &t), "", template_args(d)));
            candidate = true;
        }
    } else if ((c >= '0' && c <= '9') || c == 'N' || c == 'Z' || c == 'S') {
        t = class_type(d);
        candidate = false; /* class_type added it */
    } else {
        dm_fail(d);
    }
    if (candidate && !d->fail) dm_add_sub(d, t);
    d->type_nest--;
    d->depth--;
    return t;
}

/* ---- encodings ---- */

/* A thunk's call offset: h <number> _ or v <number> _ <number> _ (numbers may start n). */
static void call_offset(struct dm *d)
{
    size_t n;
    int parts = dm_eat(d, 'h') ? 1 : dm_eat(d, 'v') ? 2 : 0;
    if (!parts) dm_fail(d);
    for (int i = 0; i < parts && !d->fail; i++) {
        dm_eat(d, 'n');
        if (dm_number(d, &n) && !dm_eat(d, '_')) dm_fail(d);
    }
}

static struct str prefixed(struct dm *d, const char *what, struct str s)
{
    uint32_t m = dm_mark(d);
    dm_lit(d, what);
    dm_add(d, s);
    return dm_done(d, m);
}

/* The special names: virtual tables, type information, thunks, guard variables. */
static struct str special(struct dm *d, unsigned flags)
{
    static const char *const of_type[][2] = {
        {"TV", "vtable for "}, {"TT", "VTT for "}, {"TI", "typeinfo for "}, {"TS", "typeinfo name for "}};
    static const char *const of_name[][2] = {
        {"GV", "guard variable for "}, {"TH", "TLS init function for "}, {"TW", "TLS wrapper function for "}};
    for (size_t i = 0; i < 4; i++)
        if (dm_peek(d, 0) == of_type[i][0][0] && dm_peek(d, 1) == of_type[i][0][1]) {
            d->p += 2;
            struct type t = parse_type(d);
            return prefixed(d, of_type[i][1], dm_type_text(d, &t));
        }
    for (size_t i = 0; i < 3; i++)
        if (dm_peek(d, 0) == of_name[i][0][0] && dm_peek(d, 1) == of_name[i][0][1]) {
            d->p += 2;
            return prefixed(d, of_name[i][1], parse_name(d).s);
        }
    if (dm_peek(d, 0) == 'T' && (dm_peek(d, 1) == 'h' || dm_peek(d, 1) == 'v' || dm_peek(d, 1) == 'c')) {
        char k = dm_peek(d, 1);
        d->p++;
        call_offset(d);
        if (k == 'c') call_offset(d);
        const char *what = k == 'h' ? "non-virtual thunk to "
            : k == 'v'              ? "virtual thunk to "
                                    : "covariant return thunk to ";
        return prefixed(d, what, parse_encoding(d, flags));
    }
    return dm_fail(d), EMPTY;
}

static struct str parse_encoding(struct dm *d, unsigned flags)
{
    if (!dm_enter(d)) return EMPTY;
    struct str out;
    int saved_nest = d->type_nest;
    char c = dm_peek(d, 0);
    if ((c == 'T' || c == 'G') && dm_peek(d, 1) && strchr("VTISHWhvc", dm_peek(d, 1))) {
        out = special(d, flags);
    } else {
        saved_nest = d->type_nest;
        d->type_nest = 0; /* the name's template arguments are the ones T_ means */
        struct name n = parse_name(d);
        d->type_nest = saved_nest;
        c = dm_peek(d, 0);
        out = n.s;
        if (!d->fail && c && c != 'E' && c != '.') { /* a function: its parameter types follow */
            struct str ret = EMPTY;
            if (n.is_template && !n.no_return) {
                struct type r = parse_type(d);
                ret = dm_type_text(d, &r);
            }
            struct str params = parameters(d, true);
            if (flags & NDM_PARAMS) {
                uint32_t m = dm_mark(d);
                if (ret.len && saved_nest == 0 && !(flags & DM_NO_RETURN)) dm_add(d, ret), dm_lit(d, " ");
                dm_add(d, n.s);
                dm_lit(d, "(");
                dm_add(d, params);
                dm_lit(d, ")");
                dm_add(d, n.quals);
                out = dm_done(d, m);
            }
        }
    }
    d->depth--;
    return out;
}

/* Clone suffixes, ".constprop.0.cold": " [clone .constprop.0] [clone .cold]". */
static bool clones(struct dm *d, struct str *s)
{
    while (!d->fail && dm_eat(d, '.')) {
        const char *from = d->p - 1;
        while (dm_peek(d, 0) && dm_peek(d, 0) != '.') d->p++;
        if (d->p == from + 1) return dm_fail(d); /* an empty suffix */
        while (dm_peek(d, 0) == '.' && dm_peek(d, 1) >= '0' && dm_peek(d, 1) <= '9') {
            d->p++;
            while (dm_peek(d, 0) >= '0' && dm_peek(d, 0) <= '9') d->p++;
        }
        uint32_t m = dm_mark(d);
        dm_add(d, *s);
        dm_lit(d, " [clone ");
        dm_add_bytes(d, from, (size_t)(d->p - from));
        dm_lit(d, "]");
        *s = dm_done(d, m);
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
        if (!d->fail && dm_peek(d, 0) == '.') {
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
