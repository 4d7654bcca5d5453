/* typelattice optional multi-threading of large elementwise loop calls: see tl_threads.h.
 *
 * One dispatch point: NumPy calls a thunk registered in place of each strided loop; the thunk
 * passes its index to tl_thr_dispatch, which runs the real loop directly (threads off, small or
 * non-splittable calls) or in chunks on the pool. The pool runs one call at a time; a call that
 * finds it busy (another Python thread) runs single-threaded.
 */
#include "tl_threads.h"
#include "tl_thunks.h"

#include <fenv.h>
#include <stdint.h>
#include <string.h>

static int tl_thr_n = 1;                    /* total threads, 1: off */
/* Waking the pool costs tens of microseconds on a VM (a halted vCPU): below ~8-12 MB of operand
 * traffic two threads were slower than one (float32 add of 2^17 elements: 6x, of 2^20: 0.82x;
 * int8 add of 2^20: 2.4x, of 2^22: 0.71x), so the threshold is in bytes, not elements */
static npy_intp tl_thr_min = (npy_intp)16 << 20;
static long tl_thr_ncalls = 0;              /* calls split so far (tests) */

/* set while a thread runs a chunk: tl_loop_error records the error there */
typedef struct { PyObject *type; const char *msg; } tl_err;
static _Thread_local tl_err *tl_thr_err_slot;

int tl_loop_error(PyObject *type, const char *msg)
{
    tl_err *e = tl_thr_err_slot;
    if (e != NULL) {
        if (e->type == NULL) { e->type = type; e->msg = msg; }
        return -1;
    }
    {
        PyGILState_STATE st = PyGILState_Ensure();
        PyErr_SetString(type, msg);
        PyGILState_Release(st);
    }
    return -1;
}

int tl_thr_get(void) { return __atomic_load_n(&tl_thr_n, __ATOMIC_RELAXED); }
void tl_thr_set_min_bytes(npy_intp n)
{
    __atomic_store_n(&tl_thr_min, n < 1 ? 1 : n, __ATOMIC_RELAXED);
}
npy_intp tl_thr_get_min_bytes(void) { return __atomic_load_n(&tl_thr_min, __ATOMIC_RELAXED); }
long tl_thr_calls(void) { return __atomic_load_n(&tl_thr_ncalls, __ATOMIC_RELAXED); }

#define TL_THR_NARGS 4              /* loops have at most 4 operands (2 in, 2 out) */
#define TL_THR_NTHUNK 4096          /* ~450 loops + the lazily registered fused/blocked ones (~1900) */
static PyArrayMethod_StridedLoop *tl_thr_real[TL_THR_NTHUNK];
static unsigned char tl_thr_nin[TL_THR_NTHUNK], tl_thr_nargs[TL_THR_NTHUNK];
static unsigned char tl_thr_quiet[TL_THR_NTHUNK];
static int tl_thr_nwrapped = 0;

static int tl_thr_dispatch(int k, PyArrayMethod_Context *ctx, char *const data[],
                           npy_intp const dims[], npy_intp const st[], NpyAuxData *aux);

/* TL_THR_NTHUNK thunks tl_thr_t_XYZ (hex index), each passing its index to the dispatcher */
#define TL_THR_THUNK(a, b, c)                                                                    \
    static int tl_thr_t_##a##b##c(PyArrayMethod_Context *ctx, char *const data[],                \
                                  npy_intp const dims[], npy_intp const st[], NpyAuxData *aux)   \
    { return tl_thr_dispatch(0x##a##b##c, ctx, data, dims, st, aux); }
#define TL_THR_PTR(a, b, c) tl_thr_t_##a##b##c,
TL_THUNKS_4096(TL_THR_THUNK)
static PyArrayMethod_StridedLoop *const tl_thr_thunks[TL_THR_NTHUNK] = { TL_THUNKS_4096(TL_THR_PTR) };

PyArrayMethod_StridedLoop *tl_thr_wrap(PyArrayMethod_StridedLoop *loop, int nin, int nout,
                                       int quiet)
{
    int k;
    for (k = 0; k < tl_thr_nwrapped; k++)
        if (tl_thr_real[k] == loop && tl_thr_quiet[k] == quiet) return tl_thr_thunks[k];
    if (tl_thr_nwrapped == TL_THR_NTHUNK || nin + nout > TL_THR_NARGS) return loop;
    tl_thr_real[k] = loop;
    tl_thr_quiet[k] = (unsigned char)quiet;
    tl_thr_nin[k] = (unsigned char)nin;
    tl_thr_nargs[k] = (unsigned char)(nin + nout);
    tl_thr_nwrapped++;
    return tl_thr_thunks[k];
}

/* Can the call be cut into chunks computing the same elements? Not if an output is written
 * through stride 0 or overlaps an input or another output other than element for element. */
static int tl_thr_splittable(int k, char *const data[], npy_intp const st[], npy_intp n)
{
    int nin = tl_thr_nin[k], nargs = tl_thr_nargs[k], i, o;
    for (o = nin; o < nargs; o++) {
        if (st[o] == 0) return 0;
        for (i = 0; i < o; i++)
            if (tl_feedback(data[i], st[i], data[o], st[o], n)) return 0;
    }
    return 1;
}

#define TL_FE_ALL4 (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
/* a reduction's call (the accumulator, stride 0, is the first input) of a loop that clears the
 * flags itself there (quiet 1) */
#define TL_THR_SAME_REDUCE(k, data, st)                                                          \
    (tl_thr_quiet[k] == 1 && (st)[0] == 0 && (st)[2] == 0 && (data)[0] == (data)[2])

#if defined(_WIN32)
/* no pthreads: always single-threaded */
int tl_thr_set(int n) { return n == 1 ? 0 : -1; }
static int tl_thr_pool_call(int k, PyArrayMethod_Context *ctx, char *const data[],
                            npy_intp const dims[], npy_intp const st[], NpyAuxData *aux)
{
    return tl_thr_real[k](ctx, data, dims, st, aux);
}
#else
#include <pthread.h>
#include <signal.h>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define TL_THR_MXCSR 1
#endif

/* chunk starts are multiples of this many elements: threads do not write to one cache line */
#define TL_THR_ALIGN 64

typedef struct {
    PyArrayMethod_StridedLoop *loop;
    PyArrayMethod_Context *ctx;
    char *const *data;
    const npy_intp *st;
    NpyAuxData *aux;
    int nargs;
    npy_intp n, chunk;
    fenv_t env;                 /* the calling thread's: rounding mode, x87 control */
#ifdef TL_THR_MXCSR
    unsigned int mxcsr;         /* the calling thread's DAZ/FTZ and SSE rounding */
#endif
} tl_job;

typedef struct { int ret, flags; tl_err err; } tl_result;

static struct {
    pthread_mutex_t run;        /* held by the one call using the pool (and by tl_thr_set) */
    pthread_mutex_t m;          /* guards gen, pending, stop */
    pthread_cond_t go, done;
    unsigned long gen, start_gen;
    int started, pending, stop;
    pthread_t tid[TL_THR_MAX];
    tl_job job;
    tl_result res[TL_THR_MAX];
} P = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
        PTHREAD_COND_INITIALIZER };

static void tl_thr_run_chunk(int i)
{
    const tl_job *j = &P.job;
    tl_result *r = &P.res[i];
    npy_intp start = (npy_intp)i * j->chunk, len = j->n - start;
    char *d[TL_THR_NARGS];
    int a;
    r->ret = 0;
    r->flags = 0;
    r->err.type = NULL;
    if (len <= 0) return;
    if (len > j->chunk) len = j->chunk;
    for (a = 0; a < j->nargs; a++) d[a] = j->data[a] + start * j->st[a];
    tl_thr_err_slot = &r->err;
    r->ret = j->loop(j->ctx, d, &len, j->st, j->aux);
    tl_thr_err_slot = NULL;
}

static void *tl_thr_worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    unsigned long seen;
    pthread_mutex_lock(&P.m);
    seen = P.start_gen;
    for (;;) {
        while (P.gen == seen && !P.stop) pthread_cond_wait(&P.go, &P.m);
        if (P.stop) break;
        seen = P.gen;
        pthread_mutex_unlock(&P.m);
        fesetenv(&P.job.env);
#ifdef TL_THR_MXCSR
        _mm_setcsr(P.job.mxcsr & ~0x3fu);
#endif
        feclearexcept(FE_ALL_EXCEPT);
        tl_thr_run_chunk(i);
        P.res[i].flags = fetestexcept(FE_ALL_EXCEPT);
        pthread_mutex_lock(&P.m);
        if (--P.pending == 0) pthread_cond_signal(&P.done);
    }
    pthread_mutex_unlock(&P.m);
    return NULL;
}

/* with P.run held */
static void tl_thr_stop(void)
{
    int i;
    if (P.started == 0) return;
    pthread_mutex_lock(&P.m);
    P.stop = 1;
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.m);
    for (i = 1; i <= P.started; i++) pthread_join(P.tid[i], NULL);
    P.stop = 0;
    P.started = 0;
}

/* fork: no call is running (prepare takes P.run) and the workers are joined (Python 3.12 warns
 * about forking a multi-threaded process); parent and child start new ones on their next
 * threaded call */
static void tl_thr_prefork(void)
{
    pthread_mutex_lock(&P.run);
    tl_thr_stop();
}
static void tl_thr_postfork_parent(void) { pthread_mutex_unlock(&P.run); }
static void tl_thr_postfork_child(void)
{
    pthread_mutex_init(&P.m, NULL);
    pthread_cond_init(&P.go, NULL);
    pthread_cond_init(&P.done, NULL);
    P.started = 0;
    P.stop = 0;
    pthread_mutex_unlock(&P.run);
}
static pthread_once_t tl_thr_once = PTHREAD_ONCE_INIT;
static void tl_thr_atfork(void)
{
    pthread_atfork(tl_thr_prefork, tl_thr_postfork_parent, tl_thr_postfork_child);
}

/* with P.run held: nworkers threads (fewer if creation fails) */
static void tl_thr_start(int nworkers)
{
    sigset_t all, old;
    pthread_once(&tl_thr_once, tl_thr_atfork);
    tl_thr_stop();
    P.start_gen = P.gen;
    sigfillset(&all);           /* signals are for the Python threads */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (P.started < nworkers
           && pthread_create(&P.tid[P.started + 1], NULL, tl_thr_worker,
                             (void *)(intptr_t)(P.started + 1)) == 0)
        P.started++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int tl_thr_set(int n)
{
    if (n < 1 || n > TL_THR_MAX) return -1;
    pthread_mutex_lock(&P.run);
    if (n != tl_thr_n) tl_thr_stop();
    __atomic_store_n(&tl_thr_n, n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&P.run);
    return 0;
}

/* the bytes a call's operands span: n elements at each operand's stride */
static npy_intp tl_thr_span(int k, npy_intp const st[], npy_intp n)
{
    npy_intp b = 0;
    int i;
    for (i = 0; i < tl_thr_nargs[k]; i++) b += st[i] < 0 ? -st[i] : st[i];
    return b * n;
}

__attribute__((noinline))
static int tl_thr_pool_call(int k, PyArrayMethod_Context *ctx, char *const data[],
                            npy_intp const dims[], npy_intp const st[], NpyAuxData *aux)
{
    PyArrayMethod_StridedLoop *loop = tl_thr_real[k];
    npy_intp n = dims[0], chunk;
    int t, i, ret = 0, flags = 0;
    tl_err err = {NULL, NULL};
    if (tl_thr_get() <= 1 || tl_thr_span(k, st, n) < tl_thr_get_min_bytes()
            || !tl_thr_splittable(k, data, st, n)
            /* NumPy kept the GIL: nothing may wait for it while we wait for the workers */
            || PyGILState_Check()
            /* another thread's call is using the pool */
            || pthread_mutex_trylock(&P.run) != 0)
        return loop(ctx, data, dims, st, aux);
    t = tl_thr_n;
    if (t > 1 && P.started != t - 1) tl_thr_start(t - 1);
    t = P.started + 1;
    if (t <= 1) {
        pthread_mutex_unlock(&P.run);
        return loop(ctx, data, dims, st, aux);
    }
    __atomic_add_fetch(&tl_thr_ncalls, 1, __ATOMIC_RELAXED);
    chunk = ((n + t - 1) / t + TL_THR_ALIGN - 1) / TL_THR_ALIGN * TL_THR_ALIGN;
    P.job.loop = loop; P.job.ctx = ctx; P.job.data = data; P.job.st = st; P.job.aux = aux;
    P.job.nargs = tl_thr_nargs[k];
    P.job.n = n;
    P.job.chunk = chunk;
    fegetenv(&P.job.env);
#ifdef TL_THR_MXCSR
    P.job.mxcsr = _mm_getcsr();
#endif
    pthread_mutex_lock(&P.m);
    P.pending = t - 1;
    P.gen++;
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.m);
    tl_thr_run_chunk(0);        /* its FP flags are raised in this thread already */
    pthread_mutex_lock(&P.m);
    while (P.pending > 0) pthread_cond_wait(&P.done, &P.m);
    pthread_mutex_unlock(&P.m);
    /* the first failing chunk's error, as a single call would stop there */
    for (i = 0; i < t; i++) {
        if (i > 0) flags |= P.res[i].flags;
        if (ret == 0 && P.res[i].ret < 0) {
            ret = -1;
            err = P.res[i].err;
            /* set without tl_loop_error: in this thread's state (chunk 0) or lost (a worker's) */
            if (err.type == NULL && i > 0) {
                err.type = PyExc_SystemError;
                err.msg = "typelattice: a loop failed in a worker thread";
            }
        }
    }
    pthread_mutex_unlock(&P.run);
    if (flags) feraiseexcept(flags);
    if (err.type != NULL) tl_loop_error(err.type, err.msg);
    return ret;
}
#endif

/* a quiet loop's call (tl_thr_wrap), then its FP flags cleared (quiet 3: 'invalid' only) */
__attribute__((noinline))
static int tl_thr_quiet_call(int k, PyArrayMethod_Context *ctx, char *const data[],
                             npy_intp const dims[], npy_intp const st[], NpyAuxData *aux)
{
    int r = tl_thr_get() <= 1 ? tl_thr_real[k](ctx, data, dims, st, aux)
                              : tl_thr_pool_call(k, ctx, data, dims, st, aux);
    if (tl_thr_quiet[k] == 3) {
        if (fetestexcept(FE_INVALID)) feclearexcept(FE_INVALID);
    } else if (fetestexcept(TL_FE_ALL4)) {
        feclearexcept(TL_FE_ALL4);
    }
    return r;
}
/* threads off (the default): straight to the loop, a jump with no stack frame (the pool path's
 * frame and saved registers took ~4% of a reduction along axis 1 of (20000, 10)) */
static int tl_thr_dispatch(int k, PyArrayMethod_Context *ctx, char *const data[],
                           npy_intp const dims[], npy_intp const st[], NpyAuxData *aux)
{
    if (tl_thr_quiet[k] && !TL_THR_SAME_REDUCE(k, data, st))
        return tl_thr_quiet_call(k, ctx, data, dims, st, aux);
    if (tl_thr_get() <= 1) return tl_thr_real[k](ctx, data, dims, st, aux);
    return tl_thr_pool_call(k, ctx, data, dims, st, aux);
}
