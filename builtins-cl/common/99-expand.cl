/* SPDX-License-Identifier: MIT */
/*
 * Expands every table row with its family's body (or nothing when the program does not use the
 * family). Last in name order so that every __ISG_ROW_<family> is defined (by the family's file,
 * or, for broadcast, reduce and scan, by the rows the rewriter generates from the table:
 * detail::collectiveRows); a family in the table without one fails to
 * compile instead of silently vanishing.
 */
#define __ISG_ROW(name, family, extension, shape, typeset) __ISG_ROW_##family(name, shape, typeset)
ISG_FUNCS(__ISG_ROW)
