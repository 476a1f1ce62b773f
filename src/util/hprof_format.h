/* SPDX-License-Identifier: Apache-2.0 */
/* Tags and constants of the HPROF binary format (see the manual): what the writers
 * write and the reader of the JVM's own dumps reads. */
#ifndef HPROF_HPROF_FORMAT_H
#define HPROF_HPROF_FORMAT_H

enum hprof_tag {
    TAG_STRING = 0x01,
    TAG_LOAD_CLASS = 0x02,
    TAG_UNLOAD_CLASS = 0x03,
    TAG_STACK_FRAME = 0x04,
    TAG_STACK_TRACE = 0x05,
    TAG_ALLOC_SITES = 0x06,
    TAG_HEAP_SUMMARY = 0x07,
    TAG_START_THREAD = 0x0A,
    TAG_END_THREAD = 0x0B,
    TAG_HEAP_DUMP = 0x0C,
    TAG_CPU_SAMPLES = 0x0D,
    TAG_CONTROL_SETTINGS = 0x0E,
    TAG_HEAP_DUMP_SEGMENT = 0x1C,
    TAG_HEAP_DUMP_END = 0x2C,
    /* timeline= (docs/timeline.md): tags no other reader uses */
    TAG_RUN_HEADER = 0x40,
    TAG_GC = 0x41,
    TAG_HEAP_SIZE = 0x42,
    TAG_ALLOCS_LIVE = 0x43,
    TAG_ALLOCS = 0x44,
};

/* Basic types: heap dump field and array element types, ALLOC SITES array kinds. */
enum hd_type {
    HD_OBJECT = 2,
    HD_BOOLEAN = 4,
    HD_CHAR = 5,
    HD_FLOAT = 6,
    HD_DOUBLE = 7,
    HD_BYTE = 8,
    HD_SHORT = 9,
    HD_INT = 10,
    HD_LONG = 11,
};

/* The basic type of a field or array element from its signature's first character. */
static inline enum hd_type hd_type_of(char sig)
{
    switch (sig) {
    case 'Z': return HD_BOOLEAN;
    case 'B': return HD_BYTE;
    case 'C': return HD_CHAR;
    case 'S': return HD_SHORT;
    case 'I': return HD_INT;
    case 'J': return HD_LONG;
    case 'F': return HD_FLOAT;
    case 'D': return HD_DOUBLE;
    default: return HD_OBJECT;
    }
}

/* CONTROL SETTINGS flags */
#define CONTROL_ALLOC_TRACES 0x1
#define CONTROL_CPU_SAMPLING 0x2

#define HPROF_ID_SIZE 4

#endif
