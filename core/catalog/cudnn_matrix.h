/* SPDX-License-Identifier: MIT */
/*
 * cuDNN's support matrix, as the catalog holds it (struct cu_cat_cudnn_support, catalog.h, newest
 * first): which row governs a cuDNN release for a CUDA major, and the one rule for whether a row
 * lists a GPU's compute capability -- the resolver's cuDNN judge and verify's check of what pip
 * brought both ask here.  The rows are read with the rest of the catalog (catalog.c).
 */
#ifndef CU_CUDNN_MATRIX_H
#define CU_CUDNN_MATRIX_H

#include "core/base/parse.h"

struct cu_catalog;
struct cu_cat_cudnn_support;

/**
 * The support-matrix row that governs cuDNN @v for CUDA @cuda_major: the row
 * with the nearest version <= @v (or the oldest row above it when none is
 * older).  NULL when the matrix has no row for that CUDA major.
 */
const struct cu_cat_cudnn_support *cu_catalog_cudnn_support(const struct cu_catalog *cat,
                                                            const struct cu_version *v,
                                                            int cuda_major);

/** The nearest support-matrix row newer than cuDNN @v for CUDA @cuda_major, or NULL. */
const struct cu_cat_cudnn_support *cu_catalog_cudnn_support_above(const struct cu_catalog *cat,
                                                                  const struct cu_version *v, int cuda_major);

/**
 * Does the support matrix list compute capability @cc for cuDNN @v built for CUDA @major?  A row lists
 * one capability per architecture (5.0 for all of Maxwell): a GPU fits from the lowest listed up to
 * the newest listed major.  A release without a row of its own, between two rows, is judged by the
 * newer one: an old GPU it dropped is not given the release (the newest release known to support it
 * wins), and a new GPU it lists is not refused because the older row predates it.  With one
 * neighbour only, that one judges.  1: listed; 0: not, and *@against (when not NULL) is the row
 * that does not list it (the release's own, its newer neighbour, or its only one); -1 when the matrix
 * has no row for that major.
 * The one rule for the resolver's cuDNN judge and verify's check of what pip brought.
 */
int cu_catalog_cudnn_lists(const struct cu_catalog *cat, const struct cu_version *v, int major,
                           const struct cu_version *cc, const struct cu_cat_cudnn_support **against);

#endif /* CU_CUDNN_MATRIX_H */
