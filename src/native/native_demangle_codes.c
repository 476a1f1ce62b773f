/* SPDX-License-Identifier: Apache-2.0 */
/* The demangler's builtin types and operators (native_demangle_codes.h). */
#include "native/native_demangle_codes.h"

#include <stddef.h>

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

const char *dm_operator(char a, char b)
{
    for (size_t i = 0; i < sizeof OPS / sizeof *OPS; i++)
        if (OPS[i].code[0] == a && OPS[i].code[1] == b) return OPS[i].text;
    return NULL;
}

const char *dm_builtin(char c)
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

const char *dm_builtin_d(char c)
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
