/* cuzk demo: the engine's showcase (a batch of partitions with a live summary). This slot is
 * filled by the engine; until then it says so. */
#include "cli.h"

int cmd_demo(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(CUZK_EINVAL, "the demo is not available in this build yet (it needs the engine)");
}
