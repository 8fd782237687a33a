/* SPDX-License-Identifier: MIT */
/* Room on disk before the first byte (installers/diskroom.c). */
#ifndef CU_INSTALLERS_DISKROOM_H
#define CU_INSTALLERS_DISKROOM_H

#include "core/fetch/net.h"
#include "core/resolve/plan.h"
#include "prepare.h"

/** The sizes no manifest gives: an archive's as the mirror reports it (no source publishes it), and what each
 *  .tar.xz takes unpacked, from its own xz index (cache, file:// mirror, or one range request when online). */
void cu_disk_learn_sizes(const struct cu_prepare_in *in, const struct cu_net *net, struct cu_plan *p);

/** The cache's and the prefix's free space against what the plan downloads and unpacks: too little is
 *  CU_E_IO (ENOSPC) with the numbers; the plan's reasons and warnings say the rest. */
CU_NODISCARD enum cu_status cu_disk_check_space(const struct cu_prepare_in *in, struct cu_plan *p, struct cu_error *err);

#endif
