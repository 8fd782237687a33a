/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/catalog/catalog.h"
#include "core/doctor/doctor.h"
#include "core/machine/sysinfo.h"
#include "testutil.h"

struct fx {
    char *dir;
    struct cu_catalog *cat;
    struct cu_sysroot root;
};

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    if (tu_catfx_init("sysinfo", &f->dir, &f->cat) != 0)
        return -1;
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;
    if (f->root.path)
        cu_sysroot_fini(&f->root);
    tu_catfx_fini(f->dir, f->cat);
    free(f);
    return 0;
}

static struct cu_facts *
probe(struct fx *f, const char *const *envp)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    assert_ok(cu_sysroot_init(&f->root, f->dir, &err), &err);
    struct cu_probe_opts o = {.root = &f->root, .catalog = f->cat, .envp = envp, .no_libs = true};
    assert_ok(cu_facts_probe(&o, &facts, &err), &err);
    return facts;
}

static void
gpu(struct fx *f, const char *bus, const char *dev, const char *cls, const char *drv)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/vendor", bus);
    tu_write(f->dir, rel, "0x10de\n");
    snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/device", bus);
    tu_write(f->dir, rel, dev);
    snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/class", bus);
    tu_write(f->dir, rel, cls);
    if (drv) {
        char target[128];
        snprintf(target, sizeof(target), "../../../../bus/pci/drivers/%s", drv);
        snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", bus);
        tu_symlink(target, f->dir, rel);
    }
}

void faultfs_set(const char *spec); /* tests/fakes/faultfs.c, linked in */

/*
 * openat2 answers EAGAIN when a lookup through ".." (sysfs's links) races a rename anywhere on the
 * machine: on a busy build box doctor once saw no GPU at all.  The probe tries again (issue 33).
 */
static void
pci_scan_while_the_machine_renames(void **state)
{
    struct fx *f = *state;
    gpu(f, "0000:01:00.0", "0x2684\n", "0x030000\n", "nvidia");
    faultfs_set("openat2:EAGAIN:bus/pci/devices:0:once;openat2:EAGAIN:/vendor:0:once");
    struct cu_facts *facts = probe(f, NULL);
    faultfs_set(NULL);
    assert_int_equal(facts->n_gpus, 1);
    assert_string_equal(facts->gpus[0].pci_id, "10de:2684");
    cu_facts_free(facts);
}

static void
pci_scan(void **state)
{
    struct fx *f = *state;
    gpu(f, "0000:01:00.0", "0x2684\n", "0x030000\n", "nvidia");
    gpu(f, "0000:01:00.1", "0x22ba\n", "0x040300\n", "snd_hda_intel"); /* its audio function */
    gpu(f, "0000:41:00.0", "0x2330\n", "0x030200\n", "vfio-pci");
    gpu(f, "0000:42:00.0", "0xzzzz\n", "0x030000\n", NULL);             /* garbage id */
    tu_write(f->dir, "proc/driver/nvidia/version",
             "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build\n");
    struct cu_facts *facts = probe(f, NULL);
    assert_int_equal(facts->n_gpus, 2);
    assert_string_equal(facts->gpus[0].pci_id, "10de:2684");
    assert_string_equal(facts->gpus[0].kernel_driver, "nvidia");
    assert_string_equal(facts->gpus[1].kernel_driver, "vfio-pci");
    assert_int_equal(facts->gpus[1].cc.part[0], 9);
    assert_int_equal(facts->driver.kind, CU_DRIVER_NVIDIA);
    assert_int_equal(facts->driver.version.part[0], 580);
    assert_int_equal(facts->driver.version.part[2], 5);
    assert_int_equal(facts->driver.cuda_max.part[0], 13);
    assert_string_equal(facts->driver.cuda_max_source, "table");

    struct cu_problems pr;
    cu_problems_init(&pr);
    cu_doctor_check(facts, f->cat, &f->root, NULL, &pr);
    bool vfio = false;
    for (size_t i = 0; i < pr.n; i++)
        vfio |= strcmp(pr.v[i].code, "gpu-vfio") == 0;
    assert_true(vfio);
    cu_problems_fini(&pr);
    cu_facts_free(facts);
}

static void
absolute_links_stay_in_root(void **state)
{
    struct fx *f = *state;
    /* The host may well have /usr/local/cuda-13.0; the fixture must not see it. */
    tu_symlink("/usr/local/cuda-13.0", f->dir, "usr/local/cuda");
    /* A relative link climbing past the root stops at the root, as in a chroot. */
    tu_write(f->dir, "srv/cuda-11.8/include/cuda.h", "#define CUDA_VERSION 11080\n");
    tu_symlink("../../../../../../../../srv/cuda-11.8", f->dir, "usr/local/cuda-escape");
    struct cu_facts *facts = probe(f, NULL);
    assert_int_equal(facts->n_installs, 1);
    assert_string_equal(facts->installs[0].path, "/srv/cuda-11.8");
    assert_string_equal(facts->installs[0].links[0], "/usr/local/cuda-escape");
    cu_facts_free(facts);
}

static void
installs_and_env(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "usr/local/cuda-11.8/version.txt", "CUDA Version 11.8.89\n");
    tu_write(f->dir, "usr/local/cuda-12.6/include/cuda.h", "#define CUDA_VERSION 12060\n");
    tu_write(f->dir, "usr/local/cuda-12.6/targets/x86_64-linux/include/cudnn_version.h",
             "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 5\n#define CUDNN_PATCHLEVEL 1\n");
    tu_write(f->dir, "usr/local/cuda-12.6/.cudaup/record.json", "{}");
    tu_symlink("cuda-12.6", f->dir, "usr/local/cuda");
    tu_write(f->dir, "usr/local/cuda-empty/README", "not a toolkit\n");
    const char *envp[] = {"PATH=/usr/bin:/usr/local/cuda/bin:/bin",
                          "LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64::/usr/local/cuda/lib64",
                          "CUDA_HOME=/usr/local/cuda", NULL};
    struct cu_facts *facts = probe(f, envp);
    assert_int_equal(facts->n_installs, 2);
    assert_string_equal(facts->installs[0].path, "/usr/local/cuda-11.8");
    assert_string_equal(facts->installs[0].version_source, "version.txt");
    assert_int_equal(facts->installs[0].version.part[2], 89);
    assert_string_equal(facts->installs[1].path, "/usr/local/cuda-12.6");
    assert_string_equal(facts->installs[1].links[0], "/usr/local/cuda");
    assert_int_equal(facts->installs[1].cudnn.part[1], 5);
    assert_true(facts->installs[1].managed);
    assert_true(facts->env.ld_empty_entry);
    assert_string_equal(facts->env.path_cuda[0], "/usr/local/cuda/bin");
    assert_null(facts->env.path_cuda[1]);
    assert_string_equal(facts->env.cuda_home, "/usr/local/cuda");
    assert_int_equal(facts->n_gpus, 0);
    assert_int_equal(facts->driver.kind, CU_DRIVER_NONE);
    cu_facts_free(facts);
}

static void
os_and_wsl(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "etc/os-release", "NAME=\"Ubuntu\"\nID=ubuntu\nVERSION_ID='24.04'\nPRETTY_NAME=\"Ubuntu 24.04 LTS\"\n");
    tu_write(f->dir, "proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2\n");
    tu_write(f->dir, "proc/sys/kernel/arch", "aarch64\n");
    struct cu_facts *facts = probe(f, NULL);
    assert_string_equal(facts->os.id, "ubuntu");
    assert_string_equal(facts->os.version_id, "24.04");
    assert_true(facts->os.wsl);
    assert_string_equal(cu_facts_platform(facts), "linux-sbsa");
    struct cu_problems pr;
    cu_problems_init(&pr);
    cu_doctor_check(facts, f->cat, &f->root, NULL, &pr);
    assert_true(cu_problems_has_error(&pr));
    assert_string_equal(pr.v[0].code, "no-gpu");
    assert_non_null(strstr(pr.v[0].message, "WSL2"));
    cu_problems_fini(&pr);
    cu_facts_free(facts);
}

static void
conda_detection(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "home/u/miniforge3/bin/conda", "#!/bin/sh\n");
    tu_write(f->dir, "home/u/miniforge3/conda-meta/conda-libmamba-solver-24.1.0-py_0.json", "{}");
    tu_write(f->dir, "home/u/miniforge3/conda-meta/conda-24.7.1-py312h7900ff3_0.json", "{}");
    const char *envp[] = {"HOME=/home/u", "PATH=/usr/bin", NULL};
    struct cu_facts *facts = probe(f, envp);
    assert_non_null(facts->pyenv);
    assert_string_equal(facts->pyenv->tool, "conda");
    assert_string_equal(facts->pyenv->path, "/home/u/miniforge3/bin/conda");
    assert_string_equal(facts->pyenv->version, "24.7.1");
    cu_facts_free(facts);
}

/* The OS, Python tools and environment variables, each read from files written here. */
static void
os_tools_and_env(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "etc/os-release", "NAME=\"Ubuntu\"\nID=ubuntu\nVERSION_ID='24.04'\nPRETTY_NAME=\"Ubuntu 24.04 LTS\"\nID_LIKE=debian\nVERSION_ID_X=no\n");
    tu_write(f->dir, "proc/version", "Linux version 5.15.167.4-microsoft-standard-WSL2\n");
    tu_write(f->dir, "proc/sys/kernel/arch", "aarch64\n");
    tu_write(f->dir, "opt/mm/bin/micromamba", "#!/bin/sh\n");
    tu_write(f->dir, "usr/bin/python3.9", "");
    tu_write(f->dir, "usr/bin/python3.12", "");
    tu_write(f->dir, "usr/bin/python3.x", "");      /* not a version */
    tu_write(f->dir, "usr/bin/python3.12.1", "");   /* not a minor */
    tu_write(f->dir, "opt/py/bin/python3.12", "");  /* the same minor again: listed once */
    tu_write(f->dir, "opt/py/bin/python3.13", "");
    tu_write(f->dir, "opt/cuda-x/include/cuda.h", "#define  CUDA_VERSION\t12040\n#define CUDA_VERSIONX 1\n");
    static const char *const envp[] = {"PATH=/usr/bin:/opt/py/bin", "MAMBA_EXE=/opt/mm/bin/micromamba",
                                       "CONDA_PREFIX=/opt/mm/envs/x", "LD_LIBRARY_PATH=/opt/cuda-x/lib64::/usr/lib",
                                       "CUDA_HOME=/opt/cuda-x", "HOME=/home/u", NULL};
    struct cu_facts *facts = probe(f, envp);
    assert_string_equal(facts->os.id, "ubuntu");
    assert_string_equal(facts->os.version_id, "24.04"); /* single quotes taken off too */
    assert_string_equal(facts->os.pretty_name, "Ubuntu 24.04 LTS");
    assert_true(facts->os.wsl);
    assert_string_equal(facts->os.machine, "aarch64");
    assert_string_equal(cu_facts_platform(facts), "linux-sbsa");
    assert_non_null(facts->pyenv);
    assert_string_equal(facts->pyenv->tool, "micromamba"); /* MAMBA_EXE names it */
    assert_string_equal(facts->pyenv->active_env, "/opt/mm/envs/x");
    assert_non_null(facts->pythons);
    assert_string_equal(facts->pythons[0], "3.13"); /* newest first, each once */
    assert_string_equal(facts->pythons[1], "3.12");
    assert_string_equal(facts->pythons[2], "3.9");
    assert_null(facts->pythons[3]);
    assert_true(facts->env.ld_empty_entry);
    assert_string_equal(facts->env.cuda_home, "/opt/cuda-x");
    assert_non_null(facts->env.ld_cuda);
    assert_string_equal(facts->env.ld_cuda[0], "/opt/cuda-x/lib64");
    cu_facts_free(facts);
    cu_sysroot_fini(&f->root);
    memset(&f->root, 0, sizeof(f->root));

    /* Jetson (L4T) is linux-aarch64; a venv alone; /usr/lib/os-release when /etc has none. */
    char *d2 = tu_tmpdir("sysinfo-l4t");
    tu_write(d2, "usr/lib/os-release", "ID=ubuntu-l4t\n");
    tu_write(d2, "proc/sys/kernel/arch", "aarch64\n");
    static const char *const env2[] = {"PATH=/nonexistent", "VIRTUAL_ENV=/home/u/venv", NULL};
    struct cu_error err;
    struct cu_sysroot r2;
    assert_ok(cu_sysroot_init(&r2, d2, &err), &err);
    struct cu_probe_opts o = {.root = &r2, .catalog = f->cat, .envp = env2, .no_libs = true};
    assert_ok(cu_facts_probe(&o, &facts, &err), &err);
    assert_string_equal(facts->os.id, "ubuntu-l4t");
    assert_string_equal(cu_facts_platform(facts), "linux-aarch64");
    assert_string_equal(facts->pyenv->tool, "venv");
    assert_string_equal(facts->pyenv->path, "/home/u/venv");
    assert_false(facts->os.wsl);
    cu_facts_free(facts);
    cu_sysroot_fini(&r2);
    /* A conda in a user's miniforge3, and /opt/conda. */
    tu_write(d2, "home/u/miniforge3/bin/conda", "");
    tu_write(d2, "home/u/miniforge3/conda-meta/conda-24.7.1-py311_0.json", "{}");
    static const char *const env3[] = {"PATH=/nonexistent", "HOME=/home/u", NULL};
    assert_ok(cu_sysroot_init(&r2, d2, &err), &err);
    o.envp = env3;
    assert_ok(cu_facts_probe(&o, &facts, &err), &err);
    assert_string_equal(facts->pyenv->tool, "conda");
    assert_string_equal(facts->pyenv->path, "/home/u/miniforge3/bin/conda");
    assert_string_equal(facts->pyenv->version, "24.7.1");
    cu_facts_free(facts);
    cu_sysroot_fini(&r2);
    tu_tmpdir_free(d2);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(os_tools_and_env, setup, teardown),
        cmocka_unit_test_setup_teardown(pci_scan, setup, teardown),
        cmocka_unit_test_setup_teardown(pci_scan_while_the_machine_renames, setup, teardown),
        cmocka_unit_test_setup_teardown(absolute_links_stay_in_root, setup, teardown),
        cmocka_unit_test_setup_teardown(installs_and_env, setup, teardown),
        cmocka_unit_test_setup_teardown(os_and_wsl, setup, teardown),
        cmocka_unit_test_setup_teardown(conda_detection, setup, teardown),
    };
    return TU_RUN(tests);
}
