/* SPDX-License-Identifier: MIT */
/*
 * The CDI specifications on this machine (the Container Device Interface: /etc/cdi and /var/run/cdi, read through
 * the machine root): for each spec file of NVIDIA's GPUs (kind nvidia.com/gpu), the devices it names and the driver
 * release it was generated for (`nvidia-ctk cdi generate` mounts libcuda.so.VERSION and passes
 * --host-driver-version=VERSION to its hooks).  Read line by line as nvidia-ctk writes them (YAML or JSON); a spec
 * it cannot read is said as such.  Facts: whether a spec is stale is doctor's and verify's judgement.
 */
#ifndef CU_CDI_H
#define CU_CDI_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/parse.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"

struct cu_cdi_spec {
    char *path;                /* as the machine sees it: /var/run/cdi/nvidia.yaml */
    char *kind;                /* "nvidia.com/gpu", or NULL when none was read */
    struct cu_strv devices;    /* the device names: "0", "GPU-8f0c...", "all" */
    struct cu_version driver;  /* the driver it was generated for (n == 0: none named) */
    bool wsl;                  /* it names WSL's /dev/dxg */
};

struct cu_cdi {
    struct cu_cdi_spec *v;     /* the NVIDIA GPU specs only, in the folders' order */
    size_t n;
    size_t others;             /* specs of other kinds */
};

/** The folders CDI specs are read from, in order. */
extern const char *const cu_cdi_dirs[];

/** Read the specs under @root.  Never fails: a folder or file that cannot be read counts as absent. */
void cu_cdi_probe(const struct cu_sysroot *root, struct cu_cdi *out);

/** Read one spec's text (YAML or JSON) into @out (its path copied from @path); false when it is no CDI spec. */
bool cu_cdi_read(const char *path, const char *text, struct cu_cdi_spec *out);

void cu_cdi_spec_fini(struct cu_cdi_spec *s);
void cu_cdi_fini(struct cu_cdi *c);

#endif /* CU_CDI_H */
