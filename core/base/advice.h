/* SPDX-License-Identifier: MIT */
/*
 * What a piece of advice asks the user to do, when the doing is cudaup's own (a command, a flag,
 * a choice), so that each front end can say it in its own terms.  The engine's sentences (a
 * problem's fix, an error's advice, a check's detail) keep the command line's words, for the CLI,
 * the JSON and the log; beside them the engine records the kind, with its argument, and the
 * wizard words that kind by naming its screens and keys instead (tui/advice.c).
 */
#ifndef CU_ADVICE_H
#define CU_ADVICE_H

enum cu_advice {
    CU_ADV_NONE,          /* no advice of cudaup's own, or the sentence says it all */
    CU_ADV_INSTALL,       /* cudaup installs the CUDA toolkit and cuDNN that fit (`cudaup install`) */
    CU_ADV_CUDA,          /* install CUDA ARG (`cudaup install --cuda ARG`) */
    CU_ADV_DRIVER_OR_CUDA, /* update the driver, or install CUDA ARG */
    CU_ADV_ADD_CUDNN,     /* install CUDA ARG again: its cuDNN comes with it */
    CU_ADV_ENV_VAR,       /* unset the variable ARG or point it at a CUDA; an install writes it */
    CU_ADV_LD_CLEAN,      /* keep one CUDA in LD_LIBRARY_PATH; an install writes a clean one */
    CU_ADV_REPAIR,        /* repair restores what the record lists (`cudaup repair`) */
    CU_ADV_REINSTALL,     /* install again with the same answers */
    CU_ADV_MIRROR_DOWN,   /* the mirror ARG is not reached: check it, or download from NVIDIA (no --mirror) */
    CU_ADV_MIRROR_LACKS,  /* the mirror ARG lacks a file: fill it, or download from NVIDIA (no --mirror) */
    CU_ADV_REQUEST,       /* what runs here: the request ARG, flags of `cudaup install` ("--framework none --cudnn none") */
    CU_ADV_COUNT
};

/** The kind's name ("repair"), for the check child's JSON line; "" for CU_ADV_NONE. */
const char *cu_advice_name(enum cu_advice a);
/** The kind of @name (cu_advice_name's inverse); CU_ADV_NONE for NULL or an unknown name. */
enum cu_advice cu_advice_from_name(const char *name);

#endif /* CU_ADVICE_H */
