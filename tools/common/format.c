/* SPDX-License-Identifier: Apache-2.0 */
/* Lowest layer: the format's vocabulary, the names of record tags, heap dump sub-record
 * tags and basic types, and the sizes of basic types. Calls no other file of the tool. */
#include "hd.h"

const char *hd_tag_name(int tag)
{
    switch (tag) {
    case 0x01: return "STRING";
    case 0x02: return "LOAD_CLASS";
    case 0x03: return "UNLOAD_CLASS";
    case 0x04: return "FRAME";
    case 0x05: return "TRACE";
    case 0x06: return "ALLOC_SITES";
    case 0x07: return "HEAP_SUMMARY";
    case 0x0A: return "START_THREAD";
    case 0x0B: return "END_THREAD";
    case 0x0C: return "HEAP_DUMP";
    case 0x0D: return "CPU_SAMPLES";
    case 0x0E: return "CONTROL_SETTINGS";
    case 0x1C: return "HEAP_DUMP_SEGMENT";
    case 0x2C: return "HEAP_DUMP_END";
    case 0x40: return "RUN_HEADER";
    case 0x41: return "GC";
    case 0x42: return "HEAP_SIZE";
    case 0x43: return "ALLOCS_LIVE";
    case 0x44: return "ALLOCS";
    default: return NULL;
    }
}

const char *hd_sub_name(int tag)
{
    switch (tag) {
    case 0xFF: return "ROOT_UNKNOWN";
    case 0x01: return "ROOT_JNI_GLOBAL";
    case 0x02: return "ROOT_JNI_LOCAL";
    case 0x03: return "ROOT_JAVA_FRAME";
    case 0x04: return "ROOT_NATIVE_STACK";
    case 0x05: return "ROOT_STICKY_CLASS";
    case 0x06: return "ROOT_THREAD_BLOCK";
    case 0x07: return "ROOT_MONITOR_USED";
    case 0x08: return "ROOT_THREAD_OBJECT";
    case 0x20: return "CLASS_DUMP";
    case 0x21: return "INSTANCE_DUMP";
    case 0x22: return "OBJ_ARRAY_DUMP";
    case 0x23: return "PRIM_ARRAY_DUMP";
    default: return NULL;
    }
}

const char *hd_type_name(int type)
{
    static const char *const names[12] = {
        NULL, NULL, "object", NULL, "boolean", "char", "float", "double", "byte", "short", "int", "long",
    };
    return type >= 0 && type < 12 ? names[type] : NULL;
}

int hd_type_size(int type, int idsize)
{
    static const int sizes[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};
    if (type == HD_OBJECT) return idsize;
    return type >= 0 && type < 12 ? sizes[type] : 0;
}
