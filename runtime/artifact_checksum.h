/* The artifact file's integrity trailer (abi.h's IngotArtifactTrailer): written by the compiler
 * after it links an artifact, verified by the runtime before dlopen. Internal to ingot: the
 * runtime's loader and the compiler's linker call it; neither function is exported from the
 * shared runtime library. */
#ifndef INGOT_RUNTIME_ARTIFACT_CHECKSUM_H_
#define INGOT_RUNTIME_ARTIFACT_CHECKSUM_H_

#include <stdint.h>

#include "ingot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Appends the trailer (XXH3-64 of the whole file as it is) to the file at `path`. Returns 0, or
 * -1 with errno set when the file cannot be read or written. */
int ingot_seal_artifact_file(const char* path);

/* Checks the trailer of the artifact at `path`: present, of this ABI version, sized for the file
 * and (unless `verify_checksum` is 0) matching the checksum of the bytes before it. Fails with
 * one INGOT_ERR_LOAD message naming the file and what is wrong. */
ingot_status ingot_check_artifact_trailer(const char* path, int verify_checksum);

#ifdef __cplusplus
}
#endif

#endif /* INGOT_RUNTIME_ARTIFACT_CHECKSUM_H_ */
