/* weft's extensions to the OpenMP API, provided by libweft-omp.so (weft's
 * OpenMP runtime; docs/openmp.md). A program that uses them can check at run
 * time that it runs on weft: dlsym(RTLD_DEFAULT, "omp_set_binding_policy"). */
#ifndef WEFT_OMP_EXT_H
#define WEFT_OMP_EXT_H

#ifdef __cplusplus
extern "C" {
#endif

/* MCTOP_MP's omp_set_binding_policy (thesis §7.7.4): the members of the
 * parallel regions the calling task starts from now on run on the cores an
 * MCTOP-PLACE policy chooses: "CON_CORE", "CON_CORE_HWC", "RR_CORE",
 * "BALANCE_CORE", "POWER", ... (weft-topo help lists them; any case, '-' for
 * '_'). The policy may change from one region to the next. NULL or "NONE"
 * restores the default placement. Returns 0, or -1 for an unknown name (a
 * message on stderr names it and lists the valid ones; the policy in force
 * does not change) or when the workers are not pinned (set OMP_PROC_BIND,
 * OMP_PLACES or WEFT_PIN=1; without them weft's workers float, as libgomp's
 * threads do). Like an ICV, the policy is inherited by the tasks the
 * calling task creates. */
int omp_set_binding_policy(const char* policy);

/* The policy in force for the calling task, "NONE" when none. */
const char* omp_get_binding_policy(void);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_OMP_EXT_H */
