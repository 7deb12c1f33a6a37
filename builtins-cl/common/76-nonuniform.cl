/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_subgroup_non_uniform_vote, _ballot and _non_uniform_arithmetic act on the members of a
 * sub-group that reach the call. Only a strategy that knows them offers the three extensions
 * (isg/strategies.def, active_set); its folder replaces this file. Elsewhere the rewriter neither
 * declares nor rewrites their functions (common/table.h, takenOn), and their rows expand to
 * nothing here.
 */
#define __ISG_ROW_nonuniform_vote(name, shape, typeset)
#define __ISG_ROW_ballot(name, shape, typeset)
#define __ISG_ROW_nonuniform_arith(name, shape, typeset)
