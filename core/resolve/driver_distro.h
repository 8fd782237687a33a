/* SPDX-License-Identifier: MIT */
/*
 * Which distribution release the driver is planned for, as the distributions define themselves in os-release
 * (os-release(5)): the release of ID and VERSION_ID where cudaup's data has it, and for a derivative the release
 * it is built on: the first ID_LIKE entry whose release (data/driver/distributions.csv) a key of the derivative's
 * os-release names by its codename (Linux Mint 22: ID_LIKE="ubuntu debian", UBUNTU_CODENAME=noble: Ubuntu 24.04).
 * A derivative plans from its base's package rows, except for a package source it has rows of its own for
 * (Pop!_OS's own driver packages).  Adding a release or a derivative is a data change.
 */
#ifndef CU_DRIVER_DISTRO_H
#define CU_DRIVER_DISTRO_H

#include <stdbool.h>

#include "core/catalog/catalog.h"
#include "core/catalog/driver_data.h"
#include "core/machine/sysinfo.h"

struct cu_drv_distro {
    const char *id, *version_id;        /* os-release's ID and VERSION_ID (borrowed from the facts; may be NULL) */
    const struct cu_drv_release *self;  /* the release row of ID and VERSION_ID, or NULL */
    const struct cu_drv_release *base;  /* the release a derivative is built on, or NULL */
    const char *base_id;                /* the ID_LIKE entry that named it (borrowed from the data) */
    const char *base_key;               /* the os-release key whose value named it ("UBUNTU_CODENAME") */
    const char *base_version;           /* the base's VERSION_ID, to match package rows with */
};

/** Find the distribution of @f in @d (which may be NULL: nothing is found).  Never fails. */
void cu_drv_distro_find(const struct cu_facts *f, const struct cu_drv_data *d, struct cu_drv_distro *out);

/** Do @ids and @versions (a data row's) name @id at @version_id ("*", the version, or its major)? */
bool cu_drv_release_matches(char *const *ids, char *const *versions, const char *id, const char *version_id);

/**
 * Does package row @r serve this distribution: made for its ID and VERSION_ID, or for the release a derivative
 * is built on where the derivative has no row of its own of @r's source?
 */
bool cu_drv_distro_serves(const struct cu_drv_distro *ds, const struct cu_drv_data *d, const struct cu_drv_pkg *r);

/** Does @r serve it through the base (not made for the derivative itself)? */
bool cu_drv_distro_via_base(const struct cu_drv_distro *ds, const struct cu_drv_pkg *r);

/** What plans and refusals call the machine's distribution: PRETTY_NAME (else ID), and "(BASE base)" for a
 *  derivative ("Linux Mint 22 (Ubuntu 24.04 base)").  Caller owns. */
char *cu_drv_distro_name(const struct cu_drv_distro *ds, const struct cu_facts *f);

/** The os-release fields that choose the distribution, as read ("ID=linuxmint, VERSION_ID=23, ID_LIKE=ubuntu
 *  debian, UBUNTU_CODENAME=zeta"): what a refusal names.  Caller owns. */
char *cu_drv_distro_read(const struct cu_facts *f);

/** The codename of the archive the driver's packages come from: the base's for a derivative, else os-release's
 *  VERSION_CODENAME, else the release row's; NULL when none is known.  Borrowed. */
const char *cu_drv_distro_codename(const struct cu_drv_distro *ds, const struct cu_facts *f);

/** The releases cudaup knows of distribution @id that a derivative may be built on ("Ubuntu 22.04 (jammy),
 *  Ubuntu 24.04 (noble)"), or NULL when it knows none.  Caller owns. */
char *cu_drv_distro_known_bases(const struct cu_drv_data *d, const char *id);

/** An ID_LIKE entry of @f that is a distribution derivatives may be built on, or NULL.  Borrowed. */
const char *cu_drv_distro_like_known(const struct cu_facts *f, const struct cu_drv_data *d);

/** The command that rebuilds the initramfs here (the `initramfs` of the first package row that serves the
 *  distribution: "update-initramfs -u", "dracut -f"), or NULL.  Borrowed. */
const char *cu_drv_distro_initramfs(const struct cu_facts *f, const struct cu_drv_data *d);

/**
 * Why cudaup plans no driver on this distribution, one sentence naming what it read, or NULL when some package
 * row serves it.  *@id_known: rows exist for os-release's ID at other versions (the distribution's packages or
 * NVIDIA's may still serve it).  Caller owns.
 */
char *cu_drv_distro_refusal(const struct cu_facts *f, const struct cu_drv_data *d, bool *id_known);

/**
 * How to install the driver by hand on this distribution, one translated sentence, from the release rows (the
 * derivative's own row, else its base's): "On Linux Mint 22 (Ubuntu 24.04 base): `sudo ubuntu-drivers install`,
 * then reboot."  NULL when the data has none for it.  Caller owns.
 */
char *cu_drv_distro_hint(const struct cu_facts *f, const struct cu_catalog *cat);

#endif /* CU_DRIVER_DISTRO_H */
