/* split_check.c - every file named on the command line splits into the
   pieces gen/prune.c cuts (none would be pasted whole), as it is and as
   each instruction-set choice cuts it (isa = {}, { "x86" }, ...). Prints
   one line per file that does not. Built by tests/test_prune.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "ir.h"

int main(int argc, char **argv)
{
    setenv("HTC_PRUNE_DEBUG", "1", 1);     /* prune_add names a file pasted whole on stderr */
    for (int i = 1; i < argc; i++) {
        size_t len;
        const char *s = (const char *)read_file(argv[i], &len);
        for (unsigned isa = 0; isa <= ISA_ALL; isa++) {
            prune_reset(isa);
            prune_add(argv[i], s, len);
        }
    }
    return 0;
}
