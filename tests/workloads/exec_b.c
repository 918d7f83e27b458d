/* exec_b: exec_a's code under other names (see exec_a.c). */
#define EXEC_WORK b_work
#define EXEC_LEAF b_leaf
#include "exec_a.c"
