/* SPDX-License-Identifier: MIT */
/* The system runner's words about others (issue 46 item 7): a lock holder's name as that process set it. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/mem.h"
#include "core/machine/syscmd.h"
#include "testutil.h"

/*
 * A process that names itself with control characters (ESC [2J clears a terminal, BEL rings it) holds dpkg's
 * lock in a scratch root: the holder cudaup names carries them escaped, never raw.
 */
static void
lock_holder_escaped(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("syscmd-lock");
    tu_write(dir, "var/lib/dpkg/lock-frontend", "");
    char *lock = cu_xasprintf("%s/var/lib/dpkg/lock-frontend", dir);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static const char name[] = "ab\033[2J\a\\c"; /* 9 bytes: under the kernel's 15 */
        prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
        int fd = open(lock, O_RDWR);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fd < 0 || fcntl(fd, F_SETLK, &fl) != 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    const char *const envp[] = {NULL};
    struct cu_sys s;
    cu_sys_init(&s, envp, dir, false);
    char *who = cu_sys_lock_holder(&s, "apt");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    assert_non_null(who);
    for (const char *p = who; *p; p++)
        assert_false((unsigned char)*p < 0x20 || *p == 0x7f);
    assert_non_null(strstr(who, "(ab\\x1b[2J\\x07\\\\c)"));
    free(who);
    cu_sys_fini(&s);
    close(ready[0]);
    close(ready[1]);
    free(lock);
    tu_tmpdir_free(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lock_holder_escaped),
    };
    return TU_RUN(tests);
}
