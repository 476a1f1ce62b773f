# SPDX-License-Identifier: Apache-2.0
# A heap dump (HPROF 1.0.2, 4-byte ids) of one linked list of N objects from one root:
# the depth no walk of hprof analyze may recurse on. Used by tests/tools/hostile_inputs.sh.
#   python3 deep_chain_hprof.py N >FILE
import struct, sys
n = int(sys.argv[1]); out = sys.stdout.buffer
def rec(tag, body): out.write(struct.pack('>BII', tag, 0, len(body)) + body)
out.write(b'JAVA PROFILE 1.0.2\0' + struct.pack('>IQ', 4, 0))
rec(1, struct.pack('>I', 1) + b'Link'); rec(1, struct.pack('>I', 2) + b'next')
rec(2, struct.pack('>IIII', 1, 0x100, 0, 1))
cd = struct.pack('>BIIIIIIII', 0x20, 0x100, 0, 0, 0, 0, 0, 0, 0) + struct.pack('>IHHH', 4, 0, 0, 1) + struct.pack('>IB', 2, 2)
body = bytearray(cd)
body += struct.pack('>BI', 0x05, 0x100)  # sticky class root
body += struct.pack('>BI', 0xFF, 0x1000)      # the head is a root
for i in range(n):
    nxt = 0x1000 + 8 * (i + 1) if i + 1 < n else 0
    body += struct.pack('>BIIIII', 0x21, 0x1000 + 8 * i, 0, 0x100, 4, nxt)
rec(0x0C, bytes(body))
