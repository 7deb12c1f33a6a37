/* SPDX-License-Identifier: MIT */
/*
 * Local strategy: the sub-group context and the exchange primitives every family shares.
 *
 * Sub-groups are runs of S consecutive linear local ids (x fastest); the last one may be
 * partial. Data moves between work-items through the hidden __local scratch argument: each
 * exchange writes into one half, passes one work-group barrier, reads, and flips to the other
 * half. Because consecutive exchanges use different halves, a work-item that runs ahead into
 * the next exchange can never overwrite a slot someone is still reading (that reader has not
 * yet reached the barrier the writer already passed), so no second barrier is needed.
 *
 * The price: every work-item of the work-group must reach every builtin that exchanges, in the
 * same order, i.e. sub-group builtins must be reached in work-group-uniform control flow.
 */

typedef struct {
  __ISG_LAYOUT_FIELDS /* rounded: also the slots per half */
  __local uchar* scratch;
  uint slot;      /* bytes one work-item may exchange at once (power of two) */
  uint toggle;    /* which half of the scratch the next exchange uses */
} __isg_ctx_t;

static inline __isg_ctx_t __isg_ctx_init(__local ulong16* scratch, uint S, uint slot, uint rx,
                                         uint ry, uint rz) {
  __isg_ctx_t c;
  __ISG_LAYOUT_INIT(c, S, rx, ry, rz)
  c.scratch = (__local uchar*)scratch;
  c.slot = slot;
  c.toggle = 0;
  return c;
}

/* Kept on one line: the rewriter inserts it into the user's first kernel line. RX..RZ: see
 * __ISG_LAYOUT_INIT. */
#define __ISG_KERNEL_PROLOGUE(S, SLOT, RX, RY, RZ) __isg_ctx_t __isg_ctx_v = __isg_ctx_init(__isg_scratch, (S), (SLOT), (RX), (RY), (RZ)); __private __isg_ctx_t* __isg_ctx = &__isg_ctx_v;

/* Start of the half the current exchange writes into. */
static inline __local uchar* __isg_exchange_area(__isg_ctx_t* ctx) {
  return ctx->scratch + ctx->toggle * ctx->rounded * ctx->slot;
}

/* The one barrier of an exchange: everything written before it is visible after it. */
static inline void __isg_exchange_sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }

static inline void __isg_exchange_done(__isg_ctx_t* ctx) { ctx->toggle ^= 1u; }

/* The work-group collectives' regions (common/90-work-group.cl): 0 is the half the next
 * exchange writes, 1 the other; the toggle stays. */
static inline __local uchar* __isg_wg_region(__isg_ctx_t* ctx, uint which) {
  return ctx->scratch + (ctx->toggle ^ which) * ctx->rounded * ctx->slot;
}

/* Slot of member `i` of this sub-group; out-of-range ids are wrapped into the sub-group's own
 * slots so that an undefined index reads garbage, never memory outside the scratch. */
static inline uint __isg_member_slot(__isg_ctx_t* ctx, uint i) { return ctx->base + i % ctx->S; }

/* Block IO's pointer as the member passed it: an exchange here needs the whole work-group, so
 * the rewriter asks for member 0's only where every member reaches the call (__ISG_L0_<name>). */
#define __isg_block_pointer(ctx, v) (v)
/* Member 0's `v` (common/80-block.cl: the pointer of block IO): one exchange through its slot,
 * which the rewriter makes at least 8 bytes for the kernels that call it. */
static inline ulong __isg_first_member_word(__isg_ctx_t* ctx, ulong v) {
  __local ulong* slot = (__local ulong*)(__isg_exchange_area(ctx) + ctx->base * ctx->slot);
  if (ctx->sglid == 0) *slot = v;
  __isg_exchange_sync();
  const ulong r = *slot;
  __isg_exchange_done(ctx);
  return r;
}

/* Whether any work-item of the work-group holds `c`: a loop the rewriter made every work-item run
 * (rewriter/src/source/predication.h) goes on while one still takes it, since each exchange in it is a
 * work-group barrier. Every taker stores the same 1, so the stores need no atomics. */
static inline int __isg_flow_any(__isg_ctx_t* ctx, int c) {
  volatile __local uint* f = (volatile __local uint*)__isg_exchange_area(ctx);
  if (ctx->lid == 0u) *f = 0u;
  __isg_exchange_sync();
  if (c) *f = 1u;
  __isg_exchange_sync();
  const int any = *f != 0u;
  __isg_exchange_done(ctx);
  return any;
}

/*
 * A value larger than the slot (the rewriter caps it at 16 bytes per value) moves in chunks of
 * as many components as the slot holds, one exchange each, so a 16-wide shuffle in a large
 * work-group does not ask for more local memory than the device has. A union gives the
 * components of any gentype (a 3-vector has the storage of four). `per` is a constant once the
 * prologue's SLOT is inlined.
 */
#define __ISG_COMPONENTS(T, s) (sizeof(T) / sizeof(s))

/* Moves `out` in chunks of `per` components: `store` writes component k + j of this work-item's
 * `values` sources into its slot, then every work-item reads member slot `src`. */
#define __ISG_CHUNKED_EXCHANGE(T, s, values, src, store)                                           \
  const uint per = clamp((uint)(ctx->slot / ((values) * sizeof(s))), 1u,                           \
                         (uint)__ISG_COMPONENTS(T, s));                                            \
  for (uint k = 0; k < __ISG_COMPONENTS(T, s); k += per) {                                         \
    __local s* p = (__local s*)__isg_exchange_area(ctx);                                           \
    for (uint j = 0; j < per && k + j < __ISG_COMPONENTS(T, s); ++j) { store }                     \
    __isg_exchange_sync();                                                                         \
    for (uint j = 0; j < per && k + j < __ISG_COMPONENTS(T, s); ++j)                               \
      out.e[k + j] = p[(src) * per + j];                                                           \
    __isg_exchange_done(ctx);                                                                      \
  }
